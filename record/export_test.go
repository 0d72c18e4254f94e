package record

// SetTestTap makes every tap of r call f with the bytes passing it, where
// naming the tap ("request body", "upstream", "client", "decoded",
// "websocket"). Set it before r serves.
func SetTestTap(r *Recorder, f func(where string, p []byte)) { r.testTap = f }
