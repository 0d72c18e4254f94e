package tape

// MaskFields masks, in place and at the same length, the values of a JSON
// message that [Redaction.Body] would redact in a request body (secret
// field names, --redact json: paths; a message that is not valid JSON gets
// the same textual scan), then the matches of the --redact regular
// expressions: a string's characters become "[redacted]" and '*' (or '*'
// only, when shorter), any other value '0' and spaces, so the message
// stays the JSON it was, its length unchanged (a WebSocket message, whose
// frames are masked in place). It returns how many values it masked and
// the secret values they held, for a [Masker] to mask where the other
// side echoes them.
func (r *Redaction) MaskFields(b []byte) (int, []string) {
	n := 0
	var secrets []string
	if isJSONStart(b) {
		var spans []jsonSpan
		spans, secrets = r.jsonSecrets(b)
		for _, s := range spans {
			v := b[s.from:s.to]
			if v[0] == '"' { // a string, perhaps cut short
				end := len(v)
				if end >= 2 && v[end-1] == '"' {
					end--
				}
				fill(v[1:end])
			} else {
				v[0] = '0'
				for i := 1; i < len(v); i++ {
					v[i] = ' '
				}
			}
			n++
		}
	}
	if r != nil {
		for _, re := range r.res {
			for _, loc := range re.FindAllIndex(b, -1) {
				secrets = append(secrets, string(b[loc[0]:loc[1]]))
				fill(b[loc[0]:loc[1]])
				n++
			}
		}
	}
	return n, secrets
}
