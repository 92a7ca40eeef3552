package core

// MaxMetadataPairs is how many metadata pairs a record of the managed-agents family holds
// (agents, sessions, vaults, credentials, environments: the official SDKs' "≤16 pairs").
const MaxMetadataPairs = 16

// PatchMetadata applies a decoded metadata patch (a string upserts its key, null deletes it, keys
// not named stay) to a copy of cur, and refuses a result beyond MaxMetadataPairs with a 400 naming
// field; what names the holder for that message. The schema has checked the patch's keys and
// values.
// A patch decoded into typed fields has *string values (nil deletes).
func PatchMetadata[V any](cur map[string]string, patch map[string]V, field, what string) (map[string]string, error) {
	next := make(map[string]string, len(cur)+len(patch))
	for k, v := range cur {
		next[k] = v
	}
	for k, v := range patch {
		switch s := any(v).(type) {
		case string:
			next[k] = s
		case *string:
			if s != nil {
				next[k] = *s
			} else {
				delete(next, k)
			}
		default:
			delete(next, k)
		}
	}
	if len(next) > MaxMetadataPairs {
		return nil, InvalidField(field, "%s has at most %d metadata pairs; this request would leave %d", what, MaxMetadataPairs, len(next))
	}
	return next, nil
}
