package convert

// EnvName exposes envName to the curl tests: the variable a redacted
// header's value is read from.
var EnvName = envName
