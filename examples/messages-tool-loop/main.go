// Command messages-tool-loop runs a tool-use loop against the Messages API: it offers the model
// a tool, runs each tool call the model makes, sends the results back, and stops when the model
// answers without calling a tool. Point it at the fake:
//
//	go run ./fake/cmd/platformfake &
//	go run ./examples/messages-tool-loop -base-url http://127.0.0.1:4010
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
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

// block is a content block; only the fields this loop reads are named.
type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

type turn struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

var weatherTool = map[string]any{
	"name":        "get_weather",
	"description": "Current weather of a city",
	"input_schema": map[string]any{
		"type":       "object",
		"required":   []string{"city"},
		"properties": map[string]any{"city": map[string]any{"type": "string"}, "unit": map[string]any{"enum": []string{"celsius", "fahrenheit"}}},
	},
}

// getWeather is the tool: a real program would call a weather service here.
func getWeather(input json.RawMessage) string {
	var in struct{ City, Unit string }
	_ = json.Unmarshal(input, &in)
	return fmt.Sprintf("18 degrees %s and sunny in %s", in.Unit, in.City)
}

// run asks one question and loops until the model stops calling tools, printing each step.
func run(hc *http.Client, baseURL, key string, out io.Writer) error {
	turns := []turn{{Role: "user", Content: "What is the weather in Lisbon?"}}
	for step := 1; step <= 10; step++ {
		var resp struct {
			Content    []block `json:"content"`
			StopReason string  `json:"stop_reason"`
		}
		if err := call(hc, baseURL, key, map[string]any{
			"model": "assistant-sonnet-4-5", "max_tokens": 1024, "tools": []any{weatherTool}, "messages": turns,
		}, &resp); err != nil {
			return err
		}
		fmt.Fprintf(out, "step %d: stop_reason=%s\n", step, resp.StopReason)
		var results []map[string]any
		for _, b := range resp.Content {
			switch b.Type {
			case "text":
				fmt.Fprintf(out, "  assistant: %s\n", b.Text)
			case "tool_use":
				result := getWeather(b.Input)
				fmt.Fprintf(out, "  tool call %s(%s) -> %s\n", b.Name, b.Input, result)
				results = append(results, map[string]any{"type": "tool_result", "tool_use_id": b.ID, "content": result})
			}
		}
		if resp.StopReason != "tool_use" {
			return nil
		}
		turns = append(turns, turn{Role: "assistant", Content: resp.Content}, turn{Role: "user", Content: results})
	}
	return fmt.Errorf("the model was still calling tools after 10 steps")
}

// call posts body to /v1/messages and decodes the answer into v; an error answer is returned as
// an error carrying the envelope's message.
func call(hc *http.Client, baseURL, key string, body, v any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, baseURL+"/v1/messages", bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("X-Api-Key", key)
	req.Header.Set("vendor-version", "2023-06-01")
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST /v1/messages: %s: %s", resp.Status, raw)
	}
	return json.Unmarshal(raw, v)
}
