package fake

// modelsArea is the area of models: the catalog, which Messages, the prompt cache and the rate limits read.
var modelsArea = &area{routes: modelRoutes, load: loadModels}

var (
	modelsSection = newSection[modelCatalog]()
)

func modelRoutes() []*route {
	return []*route{
		// Models (spec 2.10, 4.5).
		{get, "/v1/models", ifModels, in{query: cursorParams(20, 1000), tape: "models"}, "models/model_list", listModels},
		{get, "/v1/models/:model_id", ifModels, in{tape: "model"}, "models/model", getModel},
	}
}
