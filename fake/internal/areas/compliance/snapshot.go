package compliance

import (
	"encoding/json"
	"errors"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// complianceSnapshot is the area's part of a snapshot (compliance.json), written from its store
// in the shape its loader reads.
var complianceSnapshot = &core.SnapshotArea{Lock: core.LockArea(complianceStores, func(c *Store) *sync.Mutex { return &c.mu }), Export: exportCompliance}

// exportCompliance writes the chat data as loaded (nothing but deletion changes it) with the
// deletions the API made, which the loading server applies again in order.
func exportCompliance(st *core.State, out map[string]any) error {
	cs := complianceStores.In(st.Stores).Built()
	raw, ok := st.Fx.Files["compliance.json"]
	if !ok {
		if len(cs.deletions) == 0 {
			return nil // no data and nothing deleted: the data set has no compliance.json
		}
		return errors.New("compliance.json: deletions without the data they apply to")
	}
	deletions, err := json.Marshal(cs.deletions)
	if err != nil {
		return err
	}
	var fields []json.RawMessage
	gjson.ParseBytes(raw).ForEach(func(k, v gjson.Result) bool {
		if k.Str != "deletions" {
			fields = append(fields, json.RawMessage(k.Raw+":"+v.Raw))
		}
		return true
	})
	if len(cs.deletions) > 0 {
		fields = append(fields, json.RawMessage(`"deletions":`+string(deletions)))
	}
	doc := "{"
	for i, f := range fields {
		if i > 0 {
			doc += ","
		}
		doc += string(f)
	}
	out["compliance.json"] = json.RawMessage(doc + "}")
	return nil
}
