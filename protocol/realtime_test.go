package protocol

import (
	"strings"
	"testing"
)

func TestAssembleRealtime(t *testing.T) {
	t.Parallel()
	server := []string{
		`{"type":"session.created","event_id":"e1","session":{"id":"sess_9","model":"gpt-realtime"}}`,
		`{"type":"conversation.item.input_audio_transcription.completed","item_id":"item_u","transcript":"what's the weather?"}`,
		`{"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}`,
		`{"type":"response.output_item.added","response_id":"resp_1","item":{"id":"item_f","type":"function_call","name":"get_weather","call_id":"call_1"}}`,
		`{"type":"response.function_call_arguments.delta","response_id":"resp_1","item_id":"item_f","call_id":"call_1","delta":"{\"city\":"}`,
		`{"type":"response.function_call_arguments.delta","response_id":"resp_1","item_id":"item_f","call_id":"call_1","delta":"\"Paris\"}"}`,
		`{"type":"response.function_call_arguments.done","response_id":"resp_1","item_id":"item_f","call_id":"call_1","arguments":"{\"city\":\"Paris\"}"}`,
		`{"type":"response.output_audio_transcript.delta","response_id":"resp_1","item_id":"item_a","content_index":0,"delta":"Sunny "}`,
		`{"type":"response.output_audio.delta","response_id":"resp_1","item_id":"item_a","content_index":0,"delta":"AAAAAA=="}`,
		`{"type":"response.output_audio_transcript.delta","response_id":"resp_1","item_id":"item_a","content_index":0,"delta":"in Paris."}`,
		`{"type":"response.output_audio_transcript.done","response_id":"resp_1","item_id":"item_a","content_index":0,"transcript":"Sunny in Paris."}`,
		`{"type":"error","event_id":"e7","error":{"type":"invalid_request_error","code":"unknown_parameter","message":"Unknown parameter: 'foo'."}}`,
		`{"type":"response.done","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":12,"output_tokens":30,"total_tokens":42}}}`,
		// A beta-named text response whose deltas disagree with its done.
		`{"type":"response.created","response":{"id":"resp_2"}}`,
		`{"type":"response.text.delta","response_id":"resp_2","item_id":"item_t","content_index":0,"delta":"Hel"}`,
		`{"type":"response.text.delta","response_id":"resp_2","item_id":"item_t","content_index":0,"delta":"lo"}`,
		`{"type":"response.text.done","response_id":"resp_2","item_id":"item_t","content_index":0,"text":"Hello!"}`,
	}
	var events []RealtimeEvent
	events = append(events, RealtimeEvent{FromClient: true, Message: 0, Data: `{"type":"conversation.item.create","item":{"id":"item_c","type":"message","role":"user","content":[{"type":"input_text","text":"Hi there"}]}}`})
	events = append(events, RealtimeEvent{FromClient: true, Message: 1, Data: `{"type":"input_audio_buffer.append","audio":"AAAA"}`})
	for i, d := range server {
		events = append(events, RealtimeEvent{Message: i + 2, Data: d})
	}
	if !IsRealtime(events) {
		t.Fatal("not recognised as a Realtime session")
	}
	rt := AssembleRealtime(events)
	if rt.SessionID != "sess_9" || rt.Model != "gpt-realtime" {
		t.Errorf("session %q model %q", rt.SessionID, rt.Model)
	}
	if len(rt.Inputs) != 2 || rt.Inputs[0].Text != "Hi there" || rt.Inputs[1].Kind != "transcription" || rt.Inputs[1].Text != "what's the weather?" {
		t.Errorf("inputs %+v", rt.Inputs)
	}
	if rt.InputAudioBytes != 3 || rt.OutputAudioBytes != 4 {
		t.Errorf("audio bytes in %d out %d", rt.InputAudioBytes, rt.OutputAudioBytes)
	}
	if len(rt.Responses) != 2 {
		t.Fatalf("%d responses", len(rt.Responses))
	}
	r1 := rt.Responses[0]
	if r1.Status != "completed" || r1.Usage == nil || r1.Usage.Output != 30 || len(r1.Parts) != 2 {
		t.Fatalf("response 1 %+v", r1)
	}
	call, speech := r1.Parts[0], r1.Parts[1]
	if call.Kind != "function_call" || call.Name != "get_weather" || call.CallID != "call_1" || call.Final() != `{"city":"Paris"}` || call.Text != call.Done {
		t.Errorf("call %+v", call)
	}
	if speech.Kind != "audio_transcript" || speech.Text != "Sunny in Paris." || speech.Final() != "Sunny in Paris." || speech.Deltas != 2 {
		t.Errorf("transcript %+v", speech)
	}
	r2 := rt.Responses[1]
	if r2.Status != "" || r2.Parts[0].Text != "Hello" || r2.Parts[0].Final() != "Hello!" {
		t.Errorf("response 2 %+v %+v", r2, r2.Parts[0])
	}
	if len(rt.Errors) != 1 || !strings.Contains(rt.Errors[0].Message, "foo") || rt.Errors[0].At != 13 {
		t.Errorf("errors %+v", rt.Errors)
	}
	if rt.ClientEvents["conversation.item.create"] != 1 || rt.ServerEvents["response.done"] != 1 {
		t.Errorf("counts %v %v", rt.ClientEvents, rt.ServerEvents)
	}
}
