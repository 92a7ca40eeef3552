package models

import "github.com/platformkit/platformkit/fake/internal/core"

// Area is the area of models: the catalog, which Messages, the prompt cache and the rate limits read.
var Area = &core.Area{Routes: modelRoutes, Load: loadModels}

var (
	ModelsSection = core.NewSection[modelCatalog]()
)

func modelRoutes() []*core.Route {
	return []*core.Route{
		// Models (spec 2.10, 4.5).
		core.Line(core.Get, "/v1/models", core.IfModels, core.In{Query: core.CursorParams(20, 1000), Tape: "models"}, "models/model_list", listModels),
		core.Line(core.Get, "/v1/models/:model_id", core.IfModels, core.In{Tape: "model"}, "models/model", getModel),
	}
}
