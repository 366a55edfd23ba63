package hashline

// The composed pipeline: every caller that turns ops into an edit (the
// edit tool, its text path for benchmarks, the tests) runs these
// functions, so the steps are chained in one place and a benchmark times
// exactly what an edit call runs.

// Env is what the pipeline needs besides the text and the ops.
type Env struct {
	Limits    Limits
	Resolver  BlockResolver // nil: block ops are EDIT_BLOCK_UNRESOLVED
	Registers Registers     // nil: named registers are unavailable
	// Syntax judges whole texts for boundary repair (§8.4). nil means no
	// checker: repair cannot judge, so rows it would ask about are
	// written as sent, with a warning saying the check could not run.
	Syntax Syntax
	// Gate, when set, is shown the IR after lowerStep and again after
	// resolveStep, before any line's content is read: the tool's
	// provenance gate (§9.1) checks the lines the ops name and then every
	// line of the resolved blocks, and its test for a position-stable
	// edit (§9 branch B) refuses anything else. An error it returns ends
	// the run and is returned as it is.
	Gate func(IR) error
	// AsSent says the model sent this exact request again, with the same
	// tag, after boundary repair asked about it: the rows apply exactly
	// as sent and repair asks nothing (§8.4).
	AsSent bool
	// Shown maps a line of the text the IR indexes to its number in the
	// version the model holds; nil is the identity. Drift recovery
	// replays an edit on a text whose lines moved (§10), and the ops a
	// repair question shows must be in the numbers of the tag sent.
	Shown func(line int) int
}

// Run chains every step for one edit of lines: Parse, Plan, Apply and,
// on success, Commit. It is the whole language without the gates; the
// tool runs Plan with its gates in env.Gate and applies through its own
// text step. A patch that is only REM, MV or EOF returns the lines
// unchanged: those are file operations for the tool, and EOF is decided
// by Patch.Final.
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
// patch without line ops copies every line. Boundary repair's warnings
// are not returned: Run is for callers that want the text (benchmarks,
// tests); the tool reads them from Plan.
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
	ir, _, err := Plan(text, p, env)
	if err != nil {
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

// Plan runs every step between a parsed patch and the IR to apply to
// text: Anchor, then Settle. It returns boundary repair's warnings with
// the IR.
func Plan(text Text, p *Patch, env Env) (IR, []string, error) {
	ir, err := Anchor(p, text.Len(), env)
	if err != nil {
		return IR{}, nil, err
	}
	return Settle(text, p, ir, env)
}

// Anchor is the first half of Plan, which reads no line's content: lowerStep
// for a text of numLines lines, env.Gate, resolveStep, env.Gate. Drift
// recovery anchors an edit on the version the tag names, moves it onto
// the live text (IR.Remap) and settles it there.
func Anchor(p *Patch, numLines int, env Env) (IR, error) {
	ir, err := lowerStep(p, numLines, env.Limits)
	if err != nil {
		return IR{}, err
	}
	if err := gate(ir, env); err != nil {
		return IR{}, err
	}
	if !hasBlocks(ir) {
		return ir, nil
	}
	if ir, err = resolveStep(ir, env.Resolver); err != nil {
		return IR{}, err
	}
	if err := gate(ir, env); err != nil {
		return IR{}, err
	}
	return ir, nil
}

// Settle is the second half of Plan, on the text the IR indexes:
// expandStep, validateStep and repairStep. The IR it returns is the one to apply:
// repair never changes an edit, it only warns or asks (§8.4).
func Settle(text Text, p *Patch, ir IR, env Env) (IR, []string, error) {
	ir, err := expandStep(ir, text, env.Registers)
	if err != nil {
		return IR{}, nil, err
	}
	if err := validateStep(ir); err != nil {
		return IR{}, nil, err
	}
	warnings, err := repairStep(text, p, ir, env)
	if err != nil {
		return IR{}, nil, err
	}
	return ir, warnings, nil
}

func gate(ir IR, env Env) error {
	if env.Gate == nil {
		return nil
	}
	return env.Gate(ir)
}

// hasBlocks reports whether an IR still holds block locators.
func hasBlocks(ir IR) bool {
	for _, e := range ir.Edits {
		if e.Kind == KindBlock {
			return true
		}
	}
	return false
}
