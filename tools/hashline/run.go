package hashline

// Env is what Run needs besides the text and the ops.
type Env struct {
	Limits    Limits
	Resolver  BlockResolver // nil: block ops are EDIT_BLOCK_UNRESOLVED
	Registers Registers     // nil: named registers are unavailable
}

// Run chains every step for one edit of lines: Parse, Lower,
// ResolveBlocks, Expand, Validate, Apply and, on success, Commit. It is
// the whole language without the gates, for tests and benchmarks; the
// tool runs the steps itself so it can put the version and provenance
// gates between them. A patch that is only REM, MV or EOF returns the
// lines unchanged: those are file operations for the tool, and EOF is
// decided by Patch.Final.
func Run(lines []string, ops string, env Env) (Result, error) {
	res, err := RunText(Lines(lines), ops, env)
	if err != nil {
		return Result{}, err
	}
	res.Lines = res.NewLines(Lines(lines))
	return res, nil
}

// RunText is Run without building the new lines, as ApplyText is Apply:
// the Result's Copies and Rows are the new text and its Lines is nil. A
// patch without line ops copies every line.
func RunText(text Text, ops string, env Env) (Result, error) {
	p, err := Parse(ops, env.Limits)
	if err != nil {
		return Result{}, err
	}
	if len(p.Ops) == 0 {
		var res Result
		if n := text.Len(); n > 0 {
			res.Copies = []Copy{{New: 1, Old: 1, N: n}}
		}
		return res, nil
	}
	ir, err := Lower(p, text.Len(), env.Limits)
	if err != nil {
		return Result{}, err
	}
	if ir, err = ResolveBlocks(ir, env.Resolver); err != nil {
		return Result{}, err
	}
	if ir, err = ExpandText(ir, text, env.Registers); err != nil {
		return Result{}, err
	}
	if err = Validate(ir); err != nil {
		return Result{}, err
	}
	res, err := ApplyText(text, ir)
	if err != nil {
		return Result{}, err
	}
	if err := Commit(ir, env.Registers); err != nil {
		return Result{}, err
	}
	return res, nil
}
