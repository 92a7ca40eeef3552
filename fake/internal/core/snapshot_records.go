package core

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/tidwall/gjson"
)

// Each area's part of a snapshot is the files it owns, written from its state in the shape its
// loader reads. Records are written from the area's own types wherever they carry JSON tags, so
// a field added to a record reaches the snapshot without a change in the area's export; what a
// type keeps in unexported fields is written explicitly, and TestSnapshotCoversState fails when
// a state type gains a field the exports have not been taught about. These are the helpers the
// exports share.

// fixtureRecord is a record as a fixture file holds it: organization_id first, then the
// record's own fields in their order, less those the file does not hold (computed or constant
// ones such as "type").
func fixtureRecord(orgID string, rec any, drop ...string) (json.RawMessage, error) {
	raw, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	out := []byte(`{`)
	if orgID != "" {
		out = append(append(append(out, `"organization_id":`...), mustQuote(orgID)...), ',')
	}
	gjson.ParseBytes(raw).ForEach(func(k, v gjson.Result) bool {
		for _, d := range drop {
			if k.Str == d {
				return true
			}
		}
		out = append(append(append(append(out, k.Raw...), ':'), v.Raw...), ',')
		return true
	})
	if out[len(out)-1] == ',' {
		out = out[:len(out)-1]
	}
	return append(out, '}'), nil
}

// mustQuote is s as a JSON string.
func mustQuote(s string) []byte {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// recordList collects the records of a file; the first error wins.
type RecordList struct {
	List []json.RawMessage
	Err  error
}

func (l *RecordList) Add(orgID string, rec any, drop ...string) {
	if l.Err != nil {
		return
	}
	r, err := fixtureRecord(orgID, rec, drop...)
	l.List, l.Err = append(l.List, r), err
}

// oldestFirstOf returns the records of an area's index by ID in list order, so that a file lists
// them as a list answers them.
func OldestFirstOf[T any](byID map[string]*T, key func(*T) ListKey) []*T {
	list := slices.Collect(maps.Values(byID))
	slices.SortFunc(list, func(a, b *T) int { return OldestFirst(key(a), key(b)) })
	return list
}

// orEmptyList makes a nil list an empty one, so that a file with no records still says so.
func OrEmptyList(l []json.RawMessage) []json.RawMessage {
	if l == nil {
		return []json.RawMessage{}
	}
	return l
}
