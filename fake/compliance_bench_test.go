package fake

import (
	"fmt"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/compliance"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// BenchmarkComplianceChatPage lists one page of 100 chats from the middle of a user's history,
// with 1,000 and with 100,000 chats in the store (spread over three users). A page costs
// O(log n + page), so the two times should be close:
//
//	go test -run '^$' -bench ComplianceChatPage -benchmem ./fake
func BenchmarkComplianceChatPage(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("chats=%d", n), func(b *testing.B) {
			s, mid := benchComplianceServer(b, n)
			path := "/v1/compliance/apps/chats?limit=100&user_ids=" + ccGrace + "," + ccAlan + "&after_id=" + mid
			b.ResetTimer()
			for b.Loop() {
				benchGet(b, s, path, "Authorization", "Bearer test-compliance-key")
			}
		})
	}
}

// benchComplianceServer builds a server whose fixtures hold n chats of Grace, Alan and Ken, and
// returns it with the ID of a chat in the middle of the list.
func benchComplianceServer(b *testing.B, n int) (*Server, string) {
	def, err := core.DefaultFixtures()
	if err != nil {
		b.Fatal(err)
	}
	fx := def.Copy()
	acme := fx.OrgByID("org_01AcmeCorporation00000001")
	*compliance.Section.In(fx.Sections) = compliance.Data{Files: map[string]*compliance.File{}, Generated: map[string]*compliance.GeneratedFile{},
		Artifacts: map[string]*compliance.ArtifactVersion{}, Projects: map[*core.Org][]*compliance.Project{}}
	users := []string{ccGrace, ccAlan, ccKen}
	for i := range n {
		at := core.Epoch().Add(-time.Duration(n-i) * time.Minute)
		ch := &compliance.Chat{ID: fmt.Sprintf("assistant_chat_bench%08d", i), Org: acme, User: compliance.User{ID: users[i%3], EmailAddress: "x@acme.example"},
			ProjectID: "assistant_proj_bench", Name: "bench", CreatedAt: at, UpdatedAt: at}
		if err := ch.Encode(); err != nil {
			b.Fatal(err)
		}
		compliance.Section.In(fx.Sections).Chats = append(compliance.Section.In(fx.Sections).Chats, ch)
	}
	s := New(WithFixtures(&Fixtures{fx: fx}))
	compliance.StoreOf(s.srv, &core.Call{St: s.srv.State()}) // build the store before timing
	return s, compliance.Section.In(fx.Sections).Chats[n/2].ID
}

// BenchmarkComplianceChatPageStore cuts the same page in the store alone, without HTTP and JSON,
// so that the ratio between the two sizes is not blurred by encoding:
//
//	go test -run '^$' -bench ComplianceChatPageStore -benchmem ./fake
func BenchmarkComplianceChatPageStore(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("chats=%d", n), func(b *testing.B) {
			s, mid := benchComplianceServer(b, n)
			st := compliance.StoreOf(s.srv, &core.Call{St: s.srv.State()})
			k := st.Chats[mid].Key()
			f := compliance.ChatFilter{Org: s.srv.State().Fx.OrgByID("org_01AcmeCorporation00000001"), Users: []string{ccGrace, ccAlan}}
			b.ResetTimer()
			for b.Loop() {
				if page := st.PageChats(f, core.CursorQuery{AfterID: mid, Limit: 100}, &k); len(page.Data) != 100 {
					b.Fatalf("page of %d", len(page.Data))
				}
			}
		})
	}
}

// BenchmarkComplianceProjectPage lists a page of 20 of the default fixtures' projects, whose
// items are spliced from the records encoded at load:
//
//	go test -run '^$' -bench ComplianceProjectPage -benchmem ./fake
func BenchmarkComplianceProjectPage(b *testing.B) {
	s := New()
	b.ReportAllocs()
	for b.Loop() {
		benchGet(b, s, "/v1/compliance/apps/projects?limit=20", "Authorization", "Bearer test-compliance-key")
	}
}
