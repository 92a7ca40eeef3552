// Command messages-record-replay is a small weather assistant whose test suite runs against
// recordings of a real deployment: its first turn streams (the text is printed as it arrives and
// the tool call assembled from its deltas), the tool result goes back in a second turn that does
// not. main_test.go is the suite: it replays testdata/recordings, and -record URL re-records them.
//
//	go run ./examples/messages-record-replay -base-url http://127.0.0.1:4010
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

func main() {
	baseURL := flag.String("base-url", "http://127.0.0.1:4010", "the API's base address")
	flag.Parse()
	key := os.Getenv("API_KEY")
	if key == "" {
		key = "test-api-key" // the fake's default key
	}
	if err := run(http.DefaultClient, *baseURL, key, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

const model = "assistant-sonnet-4-5"

var weatherTool = map[string]any{
	"name":        "get_weather",
	"description": "Current weather of a city",
	"input_schema": map[string]any{
		"type":       "object",
		"required":   []string{"city"},
		"properties": map[string]any{"city": map[string]any{"type": "string"}},
	},
}

// block is a content block of an answer, as the assistant sends it back in the next turn.
type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

// run asks about the weather: a streamed turn that calls the tool, then the tool's result.
func run(hc *http.Client, baseURL, key string, out io.Writer) error {
	question := map[string]any{"role": "user", "content": "What is the weather in Lisbon?"}
	body := map[string]any{"model": model, "max_tokens": 512, "tools": []any{weatherTool}, "stream": true,
		"messages": []any{question}}
	resp, err := post(hc, baseURL, key, body)
	if err != nil {
		return err
	}
	content, stop, err := readStream(resp.Body, out)
	resp.Body.Close()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nturn 1: stop_reason=%s\n", stop)
	var results []any
	for _, b := range content {
		if b.Type == "tool_use" {
			result := "18 degrees and sunny" // a real assistant would call a weather service here
			fmt.Fprintf(out, "tool call %s(%s) -> %s\n", b.Name, b.Input, result)
			results = append(results, map[string]any{"type": "tool_result", "tool_use_id": b.ID, "content": result})
		}
	}
	if stop != "tool_use" {
		return nil
	}
	body = map[string]any{"model": model, "max_tokens": 512, "tools": []any{weatherTool}, "messages": []any{
		question, map[string]any{"role": "assistant", "content": content}, map[string]any{"role": "user", "content": results}}}
	resp, err = post(hc, baseURL, key, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var answer struct {
		Content    []block `json:"content"`
		StopReason string  `json:"stop_reason"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return err
	}
	fmt.Fprintf(out, "turn 2: stop_reason=%s\n", answer.StopReason)
	for _, b := range answer.Content {
		if b.Type == "text" {
			fmt.Fprintf(out, "assistant: %s\n", b.Text)
		}
	}
	return nil
}

// post sends a Create a Message request; an error answer is returned as an error.
func post(hc *http.Client, baseURL, key string, body any) (*http.Response, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, baseURL+"/v1/messages", bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Api-Key", key)
	req.Header.Set("vendor-version", "2023-06-01")
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		msg, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("POST /v1/messages: %s: %s", resp.Status, msg)
	}
	return resp, nil
}

// readStream reads a Messages event stream as it arrives: text is printed delta by delta, tool
// calls are assembled from their input_json_delta pieces. It returns the content and stop reason.
func readStream(r io.Reader, out io.Writer) ([]block, string, error) {
	var content []block
	var partial strings.Builder
	stop := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue // event: lines name the type that data repeats; blank lines end events
		}
		var ev struct {
			Type         string `json:"type"`
			ContentBlock block  `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
			Error struct{ Message string } `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return nil, "", err
		}
		switch ev.Type {
		case "content_block_start":
			content = append(content, ev.ContentBlock)
			partial.Reset()
		case "content_block_delta":
			last := &content[len(content)-1]
			switch ev.Delta.Type {
			case "text_delta":
				last.Text += ev.Delta.Text
				fmt.Fprint(out, ev.Delta.Text)
			case "input_json_delta":
				partial.WriteString(ev.Delta.PartialJSON)
			}
		case "content_block_stop":
			if last := &content[len(content)-1]; last.Type == "tool_use" && partial.Len() > 0 {
				last.Input = json.RawMessage(partial.String())
			}
		case "message_delta":
			stop = ev.Delta.StopReason
		case "error":
			return nil, "", fmt.Errorf("the stream failed: %s", ev.Error.Message)
		}
	}
	return content, stop, sc.Err()
}
