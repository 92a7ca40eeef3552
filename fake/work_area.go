package fake

import (
	"fmt"
	"math"
)

// workArea is the area of environments and the work queue of self-hosted environments.
var workArea = &area{routes: workRoutes, load: loadEnvironments, snapshot: workSnapshot}

var (
	envsSection = newSection[[]*envFixture]()
	workStores  = newStore[workStore]()
)

func workRoutes() []*route {
	return []*route{
		// Environments and the work queue (spec 2.16, 3.1, 4.8; gaps §8).
		{post, "/_fake/environments/:environment_id/work", nil, in{body: "work/enqueue"}, "work/work", enqueueWork},
		{post, "/v1/environments", ifEnvironments, in{body: "work/environment_create"}, "work/environment", createEnvironment},
		{get, "/v1/environments", ifEnvironments, in{query: query(tokenParams(20, 100), boolParam("include_archived", false, "Include archived environments."))}, "work/environment_list", listEnvironments},
		{get, "/v1/environments/:environment_id", ifEnvironments, in{}, "work/environment", getEnvironment},
		{post, "/v1/environments/:environment_id", ifEnvironments, in{body: "work/environment_update"}, "work/environment", updateEnvironment},
		{post, "/v1/environments/:environment_id/archive", ifEnvironments, in{}, "work/environment", archiveEnvironment},
		{del, "/v1/environments/:environment_id", ifEnvironments, in{}, "work/environment_deleted", deleteEnvironment},
		{get, "/v1/environments/:environment_id/work", ifWork, in{query: tokenParams(20, 100)}, "work/work_list", listWork},
		{get, "/v1/environments/:environment_id/work/stats", ifWork, in{}, "work/stats", workStats},
		{get, "/v1/environments/:environment_id/work/poll", ifWork, in{query: qPoll, headers: hWorker}, "work/poll", pollWork},
		{get, "/v1/environments/:environment_id/work/:work_id", ifWork, in{}, "work/work", getWork},
		{post, "/v1/environments/:environment_id/work/:work_id", ifWork, in{body: "work/work_update"}, "work/work", updateWork},
		{post, "/v1/environments/:environment_id/work/:work_id/ack", ifWork, in{}, "work/work", ackWork},
		{post, "/v1/environments/:environment_id/work/:work_id/heartbeat", ifWork, in{query: qHeartbeat}, "work/heartbeat", heartbeatWork},
		{post, "/v1/environments/:environment_id/work/:work_id/stop", ifWork, in{body: "work/stop"}, "work/work", stopWork},
	}
}

var (
	qPoll = query(
		intParam("block_ms", 0, 1, 999, "Wait up to this long for work to arrive; without it, answer at once."),
		intParam("reclaim_older_than_ms", defaultReclaimMS, 0, 86_400_000, "Also hand out items whose lease holder has been silent this long."))
	qHeartbeat = query(
		numberParam("desired_ttl_seconds", defaultLeaseSeconds, 0, math.MaxFloat64, fmt.Sprintf("The lease to hold, in seconds; at most %v are granted.", maxLeaseSeconds)),
		[]param{{name: "expected_last_heartbeat", kind: pString, required: true,
			doc: "The last_heartbeat of the previous heartbeat, or " + noHeartbeat + " to claim an unclaimed lease; 412 when it is not the current one."}})
	hWorker = []param{{name: headerWorkerID, kind: pString,
		doc: "Identifies the polling worker, for the environment's metrics (workers_polling); not a credential."}}
)
