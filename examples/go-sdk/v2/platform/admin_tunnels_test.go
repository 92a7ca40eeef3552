package platform

import (
	"context"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/platformkit/platformkit/conformance/certgen"
	"github.com/platformkit/platformkit/fake"
)

// Fixture IDs of the first organization (fixtures/admin.json, users.json, tunnels.json).
const (
	defaultWorkspace  = "wrkspc_01AcmeProduction00000001"
	researchWorkspace = "wrkspc_01AcmeResearch0000000001"
	pendingInvite     = "invite_01AcmePendingHamming0001"
	developerUser     = "user_01AcmeGraceDeveloper00001"
	alanUser          = "user_01AcmeAlanUser00000000001"
	prodTunnel        = "tnl_01AcmeProduction000000001"
	prodCertificate   = "tcrt_01AcmeProdRootCA2025000001"
)

var tunnelsBeta = []anthropic.AnthropicBeta{fake.TunnelsAPIBeta}

// TestAdministration: v2's administration services, with user_profile_id and the ids filter that
// v2 added on workspaces.
func TestAdministration(t *testing.T) {
	ctx := context.Background()
	c := NewClient(fake.NewTestServer(t).URL, fake.DefaultAdminKey)
	org := c.Organization
	answer(org.Get(ctx)).ok(t, "organization.get")

	answer(org.Invites.New(ctx, anthropic.OrganizationInviteNewParams{
		Email: "sdk.full@acme.example", Role: anthropic.OrganizationInviteNewParamsRoleDeveloper, RBACGroupIDs: []string{},
	})).ok(t, "invites.new (all fields)")
	bare := answer(org.Invites.New(ctx, anthropic.OrganizationInviteNewParams{Email: "sdk.bare@acme.example", Role: anthropic.OrganizationInviteNewParamsRoleUser})).ok(t, "invites.new (required)")
	answer(org.Invites.Get(ctx, pendingInvite)).ok(t, "invites.get")
	answer(org.Invites.List(ctx, anthropic.OrganizationInviteListParams{
		AfterID: anthropic.String(pendingInvite), Email: anthropic.String("sdk.full@acme.example"), Limit: anthropic.Int(5),
		Roles: []string{"developer"}, Statuses: []string{"pending"},
	})).ok(t, "invites.list (all fields)")
	answer(org.Invites.List(ctx, anthropic.OrganizationInviteListParams{BeforeID: anthropic.String(bare.ID)})).ok(t, "invites.list (before_id)")
	answer(org.Invites.List(ctx, anthropic.OrganizationInviteListParams{})).ok(t, "invites.list (required)")
	answer(org.Invites.Delete(ctx, bare.ID)).ok(t, "invites.delete")

	answer(org.Users.Get(ctx, developerUser)).ok(t, "users.get")
	answer(org.Users.Update(ctx, developerUser, anthropic.OrganizationUserUpdateParams{Role: anthropic.OrganizationUserUpdateParamsRoleBilling})).ok(t, "users.update")
	answer(org.Users.List(ctx, anthropic.OrganizationUserListParams{
		AfterID: anthropic.String(developerUser), Email: anthropic.String("alan@acme.example"), Limit: anthropic.Int(5), Roles: []string{"user"},
	})).ok(t, "users.list (all fields)")
	answer(org.Users.List(ctx, anthropic.OrganizationUserListParams{BeforeID: anthropic.String(alanUser)})).ok(t, "users.list (before_id)")
	answer(org.Users.List(ctx, anthropic.OrganizationUserListParams{})).ok(t, "users.list (required)")
	answer(org.Users.Remove(ctx, alanUser)).ok(t, "users.remove")

	ws := org.Workspaces
	full := answer(ws.New(ctx, anthropic.OrganizationWorkspaceNewParams{
		Name: "sdk full", DisplayColor: anthropic.String("#123ABC"), ExternalKeyID: anthropic.String("extkey_sdk"), Tags: map[string]string{"team": "sdk"},
		UserProfileID: anthropic.String("uprof_01example"),
		DataResidency: anthropic.DataResidencyCreateConfigParam{
			AllowedInferenceGeos: anthropic.DataResidencyCreateConfigAllowedInferenceGeosUnionParam{OfGeos: []anthropic.AllowedInferenceGeo{anthropic.AllowedInferenceGeoUs}},
			DefaultInferenceGeo:  anthropic.DataResidencyCreateConfigDefaultInferenceGeoUs,
			WorkspaceGeo:         anthropic.DataResidencyCreateConfigWorkspaceGeoUs,
		},
	})).ok(t, "workspaces.new (all fields)")
	if full.DisplayColor != "#123ABC" || full.ExternalKeyID != "extkey_sdk" {
		t.Fatalf("workspaces.new: display_color %q, external_key_id %q not as sent", full.DisplayColor, full.ExternalKeyID)
	}
	wsBare := answer(ws.New(ctx, anthropic.OrganizationWorkspaceNewParams{Name: "sdk bare"})).ok(t, "workspaces.new (required)")
	answer(ws.Get(ctx, researchWorkspace)).ok(t, "workspaces.get")
	answer(ws.Update(ctx, wsBare.ID, anthropic.OrganizationWorkspaceUpdateParams{
		DisplayColor: anthropic.String("#ABCDEF"), ExternalKeyID: anthropic.String("extkey_late"), Name: anthropic.String("sdk bare 2"), Tags: map[string]string{"t": "1"},
		UserProfileID: anthropic.String("uprof_01example"),
		DataResidency: anthropic.DataResidencyUpdateConfigParam{
			AllowedInferenceGeos: anthropic.DataResidencyUpdateConfigAllowedInferenceGeosUnionParam{OfGeos: []anthropic.AllowedInferenceGeo{anthropic.AllowedInferenceGeoGlobal}},
			DefaultInferenceGeo:  anthropic.DataResidencyUpdateConfigDefaultInferenceGeoGlobal,
		},
	})).ok(t, "workspaces.update (all fields)")
	answer(ws.Update(ctx, full.ID, anthropic.OrganizationWorkspaceUpdateParams{})).ok(t, "workspaces.update (required)")
	answer(ws.List(ctx, anthropic.OrganizationWorkspaceListParams{
		AfterID: anthropic.String(researchWorkspace), IncludeArchived: anthropic.Bool(true), IncludeDefault: anthropic.Bool(true), Limit: anthropic.Int(5),
		IDs: []string{researchWorkspace, full.ID},
	})).ok(t, "workspaces.list (all fields)")
	answer(ws.List(ctx, anthropic.OrganizationWorkspaceListParams{BeforeID: anthropic.String(full.ID)})).ok(t, "workspaces.list (before_id)")
	answer(ws.List(ctx, anthropic.OrganizationWorkspaceListParams{})).ok(t, "workspaces.list (required)")

	orgLimits := answer(org.RateLimits.List(ctx, anthropic.OrganizationRateLimitListParams{
		Limit: anthropic.Int(2), Model: anthropic.String("assistant-opus-4-5"), GroupType: anthropic.OrganizationRateLimitListParamsGroupTypeModelGroup,
	})).ok(t, "rate_limits.list (all fields)")
	all := answer(org.RateLimits.List(ctx, anthropic.OrganizationRateLimitListParams{})).ok(t, "rate_limits.list (required)")
	answer(org.RateLimits.List(ctx, anthropic.OrganizationRateLimitListParams{Limit: anthropic.Int(1), Page: anthropic.String(answer(org.RateLimits.List(ctx,
		anthropic.OrganizationRateLimitListParams{Limit: anthropic.Int(1)})).ok(t, "rate_limits.list (limit)").NextPage)})).ok(t, "rate_limits.list (page)")
	updated := answer(ws.RateLimits.Update(ctx, orgLimits.Data[0].ID, anthropic.OrganizationWorkspaceRateLimitUpdateParams{
		WorkspaceID: researchWorkspace,
		Limits: []anthropic.WorkspaceRateLimitUpdateValueParam{
			{Type: anthropic.WorkspaceRateLimitTypeRequestsPerMinute, Value: anthropic.Int(1500)},
			{Type: anthropic.WorkspaceRateLimitTypeOutputTokensPerMinute, Value: anthropic.Int(1000)},
		},
	})).ok(t, "workspaces.rate_limits.update")
	if len(updated.Limits) == 0 || updated.RateLimitID != orgLimits.Data[0].ID || updated.WorkspaceID != researchWorkspace {
		t.Fatalf("workspaces.rate_limits.update answered %s", updated.RawJSON())
	}
	answer(ws.RateLimits.Update(ctx, all.Data[3].ID, anthropic.OrganizationWorkspaceRateLimitUpdateParams{
		WorkspaceID: researchWorkspace, Limits: []anthropic.WorkspaceRateLimitUpdateValueParam{{Type: anthropic.WorkspaceRateLimitTypeRequestsPerMinute, Value: param.Null[int64]()}},
	})).ok(t, "workspaces.rate_limits.update (clear)")
	answer(ws.RateLimits.List(ctx, researchWorkspace, anthropic.OrganizationWorkspaceRateLimitListParams{
		Limit: anthropic.Int(5), IncludeInherited: anthropic.Bool(true), GroupType: anthropic.OrganizationWorkspaceRateLimitListParamsGroupTypeModelGroup,
	})).ok(t, "workspaces.rate_limits.list (all fields)")
	answer(ws.RateLimits.List(ctx, researchWorkspace, anthropic.OrganizationWorkspaceRateLimitListParams{})).ok(t, "workspaces.rate_limits.list (required)")
	answer(ws.Archive(ctx, full.ID)).ok(t, "workspaces.archive")
}

// TestBetaAdministration: v2's beta administration services (client.Beta.Organization), on the
// same routes as the GA ones: the beta workspace's inference_data_privacy and the users' sign_out
// (beta admin-user-sign-out-2026-10-08, which the SDK sends by itself).
func TestBetaAdministration(t *testing.T) {
	ctx := context.Background()
	c := NewClient(fake.NewTestServer(t).URL, fake.DefaultAdminKey)
	org := c.Beta.Organization
	answer(org.Get(ctx)).ok(t, "beta.organization.get")

	answer(org.Invites.New(ctx, anthropic.BetaOrganizationInviteNewParams{
		Email: "beta.full@acme.example", Role: anthropic.BetaOrganizationInviteNewParamsRoleDeveloper, RBACGroupIDs: []string{},
	})).ok(t, "beta.invites.new (all fields)")
	bare := answer(org.Invites.New(ctx, anthropic.BetaOrganizationInviteNewParams{Email: "beta.bare@acme.example", Role: anthropic.BetaOrganizationInviteNewParamsRoleUser})).ok(t, "beta.invites.new (required)")
	answer(org.Invites.Get(ctx, pendingInvite)).ok(t, "beta.invites.get")
	answer(org.Invites.List(ctx, anthropic.BetaOrganizationInviteListParams{
		AfterID: anthropic.String(pendingInvite), Email: anthropic.String("beta.full@acme.example"), Limit: anthropic.Int(5),
		Roles: []string{"developer"}, Statuses: []string{"pending"},
	})).ok(t, "beta.invites.list (all fields)")
	answer(org.Invites.List(ctx, anthropic.BetaOrganizationInviteListParams{})).ok(t, "beta.invites.list (required)")
	answer(org.Invites.Delete(ctx, bare.ID)).ok(t, "beta.invites.delete")

	answer(org.Users.Get(ctx, developerUser)).ok(t, "beta.users.get")
	answer(org.Users.Update(ctx, developerUser, anthropic.BetaOrganizationUserUpdateParams{Role: anthropic.BetaOrganizationUserUpdateParamsRoleBilling})).ok(t, "beta.users.update")
	answer(org.Users.List(ctx, anthropic.BetaOrganizationUserListParams{
		AfterID: anthropic.String(developerUser), Email: anthropic.String("alan@acme.example"), Limit: anthropic.Int(5), Roles: []string{"user"},
	})).ok(t, "beta.users.list (all fields)")
	answer(org.Users.List(ctx, anthropic.BetaOrganizationUserListParams{})).ok(t, "beta.users.list (required)")
	answer(org.Users.SignOut(ctx, developerUser, anthropic.BetaOrganizationUserSignOutParams{Betas: []anthropic.AnthropicBeta{"admin-user-sign-out-2026-10-08"}})).ok(t, "beta.users.sign_out (all fields)")
	answer(org.Users.SignOut(ctx, alanUser, anthropic.BetaOrganizationUserSignOutParams{})).ok(t, "beta.users.sign_out (required)")
	answer(org.Users.Remove(ctx, alanUser)).ok(t, "beta.users.remove")

	ws := org.Workspaces
	full := answer(ws.New(ctx, anthropic.BetaOrganizationWorkspaceNewParams{
		Name: "beta full", DisplayColor: anthropic.String("#123ABC"), ExternalKeyID: anthropic.String("extkey_beta"), Tags: map[string]string{"team": "sdk"},
		UserProfileID: anthropic.String("uprof_01example"),
		InferenceDataPrivacy: anthropic.BetaInferenceDataPrivacyCreateParam{
			HumanReview:        anthropic.BetaAnthropicHumanReviewParam{Type: anthropic.BetaAnthropicHumanReviewParamTypeEnabled},
			SafeguardsStorage:  anthropic.BetaStorageMemberParamUnion{OfInternal: &anthropic.BetaInternalStorageParam{}},
			TranscriptsStorage: anthropic.BetaStorageMemberParamUnion{OfInternal: &anthropic.BetaInternalStorageParam{}},
		},
		Betas: []anthropic.AnthropicBeta{anthropic.AnthropicBetaEfs2026_10_01},
	})).ok(t, "beta.workspaces.new (all fields)")
	wsBare := answer(ws.New(ctx, anthropic.BetaOrganizationWorkspaceNewParams{Name: "beta bare"})).ok(t, "beta.workspaces.new (required)")
	answer(ws.Get(ctx, researchWorkspace, anthropic.BetaOrganizationWorkspaceGetParams{})).ok(t, "beta.workspaces.get")
	answer(ws.Update(ctx, wsBare.ID, anthropic.BetaOrganizationWorkspaceUpdateParams{
		DisplayColor: anthropic.String("#ABCDEF"), ExternalKeyID: anthropic.String("extkey_late"), Name: anthropic.String("beta bare 2"), Tags: map[string]string{"t": "1"},
		UserProfileID: anthropic.String("uprof_01example"),
		InferenceDataPrivacy: anthropic.BetaInferenceDataPrivacyUpdateParam{
			HumanReview:       anthropic.BetaAnthropicHumanReviewParam{Type: anthropic.BetaAnthropicHumanReviewParamTypeEnabled},
			SafeguardsStorage: anthropic.BetaStorageMemberParamUnion{OfInternal: &anthropic.BetaInternalStorageParam{}},
		},
		Betas: []anthropic.AnthropicBeta{anthropic.AnthropicBetaEfs2026_10_01},
	})).ok(t, "beta.workspaces.update (all fields)")
	answer(ws.Update(ctx, full.ID, anthropic.BetaOrganizationWorkspaceUpdateParams{})).ok(t, "beta.workspaces.update (required)")
	answer(ws.List(ctx, anthropic.BetaOrganizationWorkspaceListParams{
		AfterID: anthropic.String(researchWorkspace), IncludeArchived: anthropic.Bool(true), IncludeDefault: anthropic.Bool(true), Limit: anthropic.Int(5),
		IDs: []string{researchWorkspace, full.ID},
	})).ok(t, "beta.workspaces.list (all fields)")
	answer(ws.List(ctx, anthropic.BetaOrganizationWorkspaceListParams{})).ok(t, "beta.workspaces.list (required)")

	limits := answer(org.RateLimits.List(ctx, anthropic.BetaOrganizationRateLimitListParams{
		Limit: anthropic.Int(2), Model: anthropic.String("assistant-opus-4-5"), GroupType: anthropic.BetaOrganizationRateLimitListParamsGroupTypeModelGroup,
	})).ok(t, "beta.rate_limits.list (all fields)")
	answer(org.RateLimits.List(ctx, anthropic.BetaOrganizationRateLimitListParams{})).ok(t, "beta.rate_limits.list (required)")
	answer(ws.RateLimits.List(ctx, researchWorkspace, anthropic.BetaOrganizationWorkspaceRateLimitListParams{
		Limit: anthropic.Int(5), IncludeInherited: anthropic.Bool(true), GroupType: anthropic.BetaOrganizationWorkspaceRateLimitListParamsGroupTypeModelGroup,
	})).ok(t, "beta.workspaces.rate_limits.list (all fields)")
	answer(ws.RateLimits.List(ctx, researchWorkspace, anthropic.BetaOrganizationWorkspaceRateLimitListParams{})).ok(t, "beta.workspaces.rate_limits.list (required)")
	answer(ws.RateLimits.Update(ctx, limits.Data[0].ID, anthropic.BetaOrganizationWorkspaceRateLimitUpdateParams{
		WorkspaceID: researchWorkspace,
		Limits:      []anthropic.BetaWorkspaceRateLimitUpdateValueParam{{Type: anthropic.BetaWorkspaceRateLimitTypeRequestsPerMinute, Value: anthropic.Int(1500)}},
	})).ok(t, "beta.workspaces.rate_limits.update")
	answer(ws.Archive(ctx, full.ID, anthropic.BetaOrganizationWorkspaceArchiveParams{})).ok(t, "beta.workspaces.archive")
}

// TestTunnels: v2's /v1/tunnels services, with the workload-identity bearer
// token; they serve the same tunnels as /v1/organizations/tunnels.
func TestTunnels(t *testing.T) {
	ctx := context.Background()
	c := NewClient(fake.NewTestServer(t).URL, fake.DefaultBearerToken)
	tn := c.Beta.Tunnels
	full := answer(tn.New(ctx, anthropic.BetaTunnelNewParams{DisplayName: anthropic.String("sdk"), WorkspaceID: anthropic.String(researchWorkspace), Betas: tunnelsBeta})).ok(t, "tunnels.new (all fields)")
	bare := answer(tn.New(ctx, anthropic.BetaTunnelNewParams{})).ok(t, "tunnels.new (required)")
	answer(tn.Get(ctx, full.ID, anthropic.BetaTunnelGetParams{WorkspaceID: anthropic.String(researchWorkspace), Betas: tunnelsBeta})).ok(t, "tunnels.get (all fields)")
	answer(tn.Get(ctx, prodTunnel, anthropic.BetaTunnelGetParams{})).ok(t, "tunnels.get (required)")
	page := answer(tn.List(ctx, anthropic.BetaTunnelListParams{IncludeArchived: anthropic.Bool(true), Limit: anthropic.Int(2), WorkspaceID: anthropic.String(researchWorkspace), Betas: tunnelsBeta})).ok(t, "tunnels.list (all fields)")
	if len(page.Data) != 2 {
		t.Fatalf("tunnels.list in %s: %d tunnels, want the created one and the fixture's", researchWorkspace, len(page.Data))
	}
	first := answer(tn.List(ctx, anthropic.BetaTunnelListParams{Limit: anthropic.Int(1)})).ok(t, "tunnels.list (limit)")
	answer(tn.List(ctx, anthropic.BetaTunnelListParams{Page: anthropic.String(first.NextPage)})).ok(t, "tunnels.list (page)")
	answer(tn.List(ctx, anthropic.BetaTunnelListParams{})).ok(t, "tunnels.list (required)")
	answer(tn.RevealToken(ctx, full.ID, anthropic.BetaTunnelRevealTokenParams{WorkspaceID: anthropic.String(researchWorkspace), Betas: tunnelsBeta})).ok(t, "tunnels.reveal_token (all fields)")
	answer(tn.RevealToken(ctx, bare.ID, anthropic.BetaTunnelRevealTokenParams{})).ok(t, "tunnels.reveal_token (required)")
	answer(tn.RotateToken(ctx, full.ID, anthropic.BetaTunnelRotateTokenParams{Reason: anthropic.String("drill"), WorkspaceID: anthropic.String(researchWorkspace), Betas: tunnelsBeta})).ok(t, "tunnels.rotate_token (all fields)")
	answer(tn.RotateToken(ctx, bare.ID, anthropic.BetaTunnelRotateTokenParams{})).ok(t, "tunnels.rotate_token (required)")

	certs := tn.Certificates
	cert := answer(certs.New(ctx, full.ID, anthropic.BetaTunnelCertificateNewParams{
		CACertificatePEM: certgen.CA("sdk full").PEM, WorkspaceID: anthropic.String(researchWorkspace), Betas: tunnelsBeta})).ok(t, "certificates.new (all fields)")
	bareCert := answer(certs.New(ctx, bare.ID, anthropic.BetaTunnelCertificateNewParams{CACertificatePEM: certgen.CA("sdk bare").PEM})).ok(t, "certificates.new (required)")
	answer(certs.Get(ctx, cert.ID, anthropic.BetaTunnelCertificateGetParams{TunnelID: full.ID, WorkspaceID: anthropic.String(researchWorkspace), Betas: tunnelsBeta})).ok(t, "certificates.get (all fields)")
	answer(certs.Get(ctx, prodCertificate, anthropic.BetaTunnelCertificateGetParams{TunnelID: prodTunnel})).ok(t, "certificates.get (required)")
	answer(certs.List(ctx, prodTunnel, anthropic.BetaTunnelCertificateListParams{IncludeArchived: anthropic.Bool(true), Limit: anthropic.Int(5), Betas: tunnelsBeta})).ok(t, "certificates.list (all fields)")
	answer(certs.List(ctx, prodTunnel, anthropic.BetaTunnelCertificateListParams{})).ok(t, "certificates.list (required)")
	answer(certs.Archive(ctx, cert.ID, anthropic.BetaTunnelCertificateArchiveParams{TunnelID: full.ID, WorkspaceID: anthropic.String(researchWorkspace), Betas: tunnelsBeta})).ok(t, "certificates.archive (all fields)")
	answer(certs.Archive(ctx, bareCert.ID, anthropic.BetaTunnelCertificateArchiveParams{TunnelID: bare.ID})).ok(t, "certificates.archive (required)")
	answer(tn.Archive(ctx, full.ID, anthropic.BetaTunnelArchiveParams{WorkspaceID: anthropic.String(researchWorkspace), Betas: tunnelsBeta})).ok(t, "tunnels.archive (all fields)")
	answer(tn.Archive(ctx, bare.ID, anthropic.BetaTunnelArchiveParams{})).ok(t, "tunnels.archive (required)")
}
