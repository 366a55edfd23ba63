package hashline

// expandLines is expandStep on a text held as lines, as most tests hold it.
func expandLines(ir IR, lines []string, regs Registers) (IR, error) {
	return expandStep(ir, Lines(lines), regs)
}
