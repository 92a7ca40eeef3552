package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
)

// The beta of the managed-agents routes, and the message that gives a claimed session its
// tool call.
const (
	managedAgentsBeta = "managed-agents-2026-04-01"
	claimedPrompt     = "Run pwd to show me the working directory."
)

// claimedItem does what `ant beta:worker poll --on-work` does before it calls its script, for a
// session of its own: with the API key it makes an agent with the agent toolset, a session of it
// in the fixtures' self-hosted environment and the user's message that gives the session a
// tool call to wait on; with the environment key it polls the environment's queue and acks the
// session's item. It returns the variables that command sets on the script (ANTHROPIC_WORK_ID,
// ANTHROPIC_SESSION_ID and ANTHROPIC_ENVIRONMENT_ID; ANTHROPIC_ENVIRONMENT_KEY and
// ANTHROPIC_BASE_URL every example has), the item as it was polled (the script's standard input)
// and the session's ID.
//
// The data set queues items of its own ahead of the session's; a poller would hand each of them
// to the script too, which would find its session terminated and stop it. They are passed by
// here, untouched: a poll hides an item it handed out only for a while, and the script is given
// the session's item alone.
func claimedItem(base, key string) (env []string, item []byte, session string, err error) {
	user := fakeAPI{base: base, key: key, beta: managedAgentsBeta}
	worker := fakeAPI{base: base, bearer: fixtureEnvKey, beta: managedAgentsBeta}
	var agent, sess struct{ ID string }
	if err := user.do(http.MethodPost, "/v1/agents",
		`{"name":"worker-dispatch-example","model":"claude-sonnet-4-5","tools":[{"type":"agent_toolset_20260401"}]}`, &agent); err != nil {
		return nil, nil, "", err
	}
	if err := user.do(http.MethodPost, "/v1/sessions",
		fmt.Sprintf(`{"agent":%q,"environment_id":%q}`, agent.ID, fixtureSelfHosted), &sess); err != nil {
		return nil, nil, "", err
	}
	if err := user.do(http.MethodPost, "/v1/sessions/"+sess.ID+"/events",
		fmt.Sprintf(`{"events":[{"type":"user.message","content":[{"type":"text","text":%q}]}]}`, claimedPrompt), nil); err != nil {
		return nil, nil, "", err
	}
	work := "/v1/environments/" + fixtureSelfHosted + "/work/"
	// The data set's own items, then the session's: a bound on the polls, not a wait.
	for range 10 {
		var raw json.RawMessage
		if err := worker.do(http.MethodGet, work+"poll?block_ms=999", "", &raw); err != nil {
			return nil, nil, "", err
		}
		var polled struct {
			ID   string
			Data struct{ ID string }
		}
		if err := json.Unmarshal(raw, &polled); err != nil || polled.ID == "" {
			return nil, nil, "", fmt.Errorf("the poll answered %s before the session's item", raw)
		}
		if polled.Data.ID != sess.ID {
			continue
		}
		if err := worker.do(http.MethodPost, work+polled.ID+"/ack", "", nil); err != nil {
			return nil, nil, "", err
		}
		return []string{"ANTHROPIC_WORK_ID=" + polled.ID, "ANTHROPIC_SESSION_ID=" + sess.ID,
			"ANTHROPIC_ENVIRONMENT_ID=" + fixtureSelfHosted}, raw, sess.ID, nil
	}
	return nil, nil, "", fmt.Errorf("10 polls, and none answered session %s's item", sess.ID)
}

// servedSession checks, through the API, that the worker served the session: its bash call's
// result, run in workdir, was posted, and the agent answered after it with a message.
func servedSession(base, key, session, workdir string) error {
	var page struct {
		Data []struct {
			Type    string
			Content []struct{ Text string }
		}
	}
	if err := (fakeAPI{base: base, key: key, beta: managedAgentsBeta}).do(http.MethodGet, "/v1/sessions/"+session+"/events?limit=100", "", &page); err != nil {
		return err
	}
	answered := false
	for _, ev := range page.Data {
		switch {
		case ev.Type == "user.tool_result" && len(ev.Content) > 0 && strings.TrimSpace(ev.Content[0].Text) == workdir:
			answered = true
		case ev.Type == "agent.message" && answered:
			return nil
		}
	}
	if !answered {
		return fmt.Errorf("session %s has no user.tool_result %q", session, workdir)
	}
	return fmt.Errorf("session %s has no agent.message after its tool result", session)
}

// prepareWorkdir makes dir, a folder an example names as written, where it is missing; made
// says the caller removes it afterwards. An error says why it cannot be made, and the example is
// skipped: the tests never need more rights than the user running them has.
func prepareWorkdir(dir string) (made bool, err error) {
	info, err := os.Stat(dir)
	switch {
	case err == nil && info.IsDir():
		return false, nil
	case err == nil:
		return false, fmt.Errorf("%s is not a folder", dir)
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("the example works in %s, which this user cannot use (%v)", dir, errors.Unwrap(err))
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return false, fmt.Errorf("the example works in %s, which this user cannot make (%v)", dir, errors.Unwrap(err))
	}
	return true, nil
}

// fakeAPI sends requests to the fake: as a client of the API with an API key (key) or a Bearer
// token (bearer), and a beta (beta) when it is not empty; with neither, to its control API.
type fakeAPI struct{ base, key, bearer, beta string }

// do sends one request and decodes its 200 answer into out (nil: discarded); any other answer
// is an error that quotes it.
func (a fakeAPI) do(method, path, body string, out any) error {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		return err
	}
	if a.key != "" {
		req.Header.Set("X-Api-Key", a.key)
	}
	if a.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+a.bearer)
	}
	if a.beta != "" {
		req.Header.Set("Anthropic-Beta", a.beta)
	}
	req.Header.Set("Anthropic-Version", "2023-06-01")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}
