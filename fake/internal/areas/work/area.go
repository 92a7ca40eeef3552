package work

import (
	"fmt"
	"math"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Area is the area of environments and the work queue of self-hosted environments.
var Area = &core.Area{Routes: workRoutes, Load: loadEnvironments, Snapshot: workSnapshot, Admit: admitToken}

var (
	EnvsSection = core.NewSection[[]*envFixture]()
	workStores  = core.NewStore[Store]()
)

func workRoutes() []*core.Route {
	return []*core.Route{
		// Environments and the work queue (spec 2.16, 3.1, 4.8; gaps §8).
		core.Line(core.Post, "/_fake/environments/:environment_id/work", nil, core.In{Body: "work/enqueue"}, "work/work", enqueueWork),
		core.Line(core.Post, "/v1/environments", core.IfEnvironments, core.In{Body: "work/environment_create"}, "work/environment", createEnvironment),
		core.Line(core.Get, "/v1/environments", core.IfEnvironments, core.In{Query: core.Query(core.TokenParams(20, 100), core.BoolParam("include_archived", false, "Include archived environments."))}, "work/environment_list", listEnvironments),
		core.Line(core.Get, "/v1/environments/:environment_id", core.IfEnvironments, core.In{}, "work/environment", getEnvironment),
		core.Line(core.Post, "/v1/environments/:environment_id", core.IfEnvironments, core.In{Body: "work/environment_update"}, "work/environment", updateEnvironment),
		core.Line(core.Post, "/v1/environments/:environment_id/archive", core.IfEnvironments, core.In{}, "work/environment", archiveEnvironment),
		core.Line(core.Del, "/v1/environments/:environment_id", core.IfEnvironments, core.In{}, "work/environment_deleted", deleteEnvironment),
		core.Line(core.Get, "/v1/environments/:environment_id/work", core.IfWork, core.In{Query: core.TokenParams(20, 100)}, "work/work_list", listWork),
		core.Line(core.Get, "/v1/environments/:environment_id/work/stats", core.IfWork, core.In{}, "work/stats", workStats),
		core.Line(core.Get, "/v1/environments/:environment_id/work/poll", core.IfWork, core.In{Query: qPoll, Headers: hWorker}, "work/poll", pollWork),
		core.Line(core.Get, "/v1/environments/:environment_id/work/:work_id", core.IfWork, core.In{}, "work/work", getWork),
		core.Line(core.Post, "/v1/environments/:environment_id/work/:work_id", core.IfWork, core.In{Body: "work/work_update"}, "work/work", updateWork),
		core.Line(core.Post, "/v1/environments/:environment_id/work/:work_id/ack", core.IfWork, core.In{}, "work/work", ackWork),
		core.Line(core.Post, "/v1/environments/:environment_id/work/:work_id/heartbeat", core.IfWork, core.In{Query: qHeartbeat}, "work/heartbeat", heartbeatWork),
		core.Line(core.Post, "/v1/environments/:environment_id/work/:work_id/stop", core.IfWork, core.In{Body: "work/stop"}, "work/work", stopWork),
	}
}

var (
	qPoll = core.Query(
		core.IntParam("block_ms", 0, 1, 999, "Wait up to this long for work to arrive; without it, answer at once."),
		core.IntParam("reclaim_older_than_ms", defaultReclaimMS, 0, 86_400_000, "Also hand out items whose lease holder has been silent this long."))
	qHeartbeat = core.Query(
		core.NumberParam("desired_ttl_seconds", DefaultLeaseSeconds, 0, math.MaxFloat64, fmt.Sprintf("The lease to hold, in seconds; at most %v are granted.", MaxLeaseSeconds)),
		[]core.Param{{Name: "expected_last_heartbeat", Kind: core.PString,
			Doc: "The last_heartbeat of the previous heartbeat, or " + NoHeartbeat + " to claim an unclaimed lease; 412 when it is not the current one. Without it the heartbeat is unconditional: it claims or extends the lease whoever held it."}})
	hWorker = []core.Param{{Name: HeaderWorkerID, Kind: core.PString,
		Doc: "Identifies the polling worker, for the environment's metrics (workers_polling); not a credential."}}
)
