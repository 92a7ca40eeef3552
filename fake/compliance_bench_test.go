package fake

import (
	"fmt"
	"testing"
	"time"

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
	*complianceSection.In(fx.Sections) = complianceData{files: map[string]*ccFile{}, generated: map[string]*ccGeneratedFile{},
		artifacts: map[string]*ccArtifactVersion{}, projects: map[*core.Org][]*ccProject{}}
	users := []string{ccGrace, ccAlan, ccKen}
	for i := range n {
		at := core.Epoch().Add(-time.Duration(n-i) * time.Minute)
		ch := &ccChat{ID: fmt.Sprintf("assistant_chat_bench%08d", i), org: acme, user: ccUser{users[i%3], "x@acme.example"},
			projectID: "assistant_proj_bench", name: "bench", createdAt: at, updatedAt: at}
		if err := ch.encode(); err != nil {
			b.Fatal(err)
		}
		complianceSection.In(fx.Sections).chats = append(complianceSection.In(fx.Sections).chats, ch)
	}
	s := New(WithFixtures(&Fixtures{fx: fx}))
	compliance(s.srv, &core.Call{St: s.srv.State()}) // build the store before timing
	return s, complianceSection.In(fx.Sections).chats[n/2].ID
}

// BenchmarkComplianceChatPageStore cuts the same page in the store alone, without HTTP and JSON,
// so that the ratio between the two sizes is not blurred by encoding:
//
//	go test -run '^$' -bench ComplianceChatPageStore -benchmem ./fake
func BenchmarkComplianceChatPageStore(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("chats=%d", n), func(b *testing.B) {
			s, mid := benchComplianceServer(b, n)
			st := compliance(s.srv, &core.Call{St: s.srv.State()})
			k := st.chats[mid].key()
			f := ccChatFilter{org: s.srv.State().Fx.OrgByID("org_01AcmeCorporation00000001"), users: []string{ccGrace, ccAlan}}
			b.ResetTimer()
			for b.Loop() {
				if page := st.pageChats(f, core.CursorQuery{AfterID: mid, Limit: 100}, &k); len(page.Data) != 100 {
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
