package testenv

import "flag"

// update is the one flag that makes the golden and txtar tests rewrite
// their expected output from what the code produces: go test ./pkg -run
// TestName -update.
var update = flag.Bool("update", false, "rewrite the golden files (txtar and generated files) of the tests run from what the code produces")

// Update reports whether the tests were run with -update.
func Update() bool { return *update }
