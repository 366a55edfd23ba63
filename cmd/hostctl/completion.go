package main

import (
	"fmt"
	"slices"
	"strings"
)

// cmdCompletion prints a shell completion script for hostctl's commands
// and flags, made from the command table so it never falls behind it.
// Where a word is a session id, a toolCallId or a method name, the script
// asks the daemon through the hidden `hostctl __complete` (complete.go).
// Install (the directories may not exist yet on a fresh home, hence the
// mkdir -p): bash, `mkdir -p ~/.local/share/bash-completion/completions &&
// hostctl completion bash > ~/.local/share/bash-completion/completions/hostctl`;
// zsh, into a directory on $fpath as _hostctl; fish, `mkdir -p
// ~/.config/fish/completions && hostctl completion fish >
// ~/.config/fish/completions/hostctl.fish`.
func cmdCompletion(a *app, shell string) error {
	top, subs := completionWords()
	var script string
	switch shell {
	case "bash":
		script = bashCompletion(top, subs)
	case "zsh":
		script = zshCompletion(top, subs)
	case "fish":
		script = fishCompletion(top, subs)
	default:
		return usageErrorf("completion knows bash, zsh and fish, not %q", shell)
	}
	_, err := fmt.Fprint(a.io.out, script)
	return err
}

// completionFlag is one of hostctl's flags as the completion scripts
// offer it: what it is for, and the value it takes ("" for none; else what
// the value is, as zsh names it), a file's path when file is set.
type completionFlag struct {
	name, help, value string
	file              bool
}

// completionFlags are the flags every script offers, in this order.
var completionFlags = []completionFlag{
	{name: "socket", help: "the daemon socket", value: "socket", file: true},
	{name: "json", help: "print raw JSON"},
	{name: "timeout", help: "give up after DUR", value: "duration"},
	{name: "version", help: "print versions"},
	{name: "help", help: "show help"},
	{name: "prompt", help: "rewind a turn", value: "prompt id"},
	{name: "since", help: "rewind since a tool call", value: "tool call"},
	{name: "call", help: "rewind one tool call", value: "tool call"},
	{name: "all", help: "rewind the whole session"},
	{name: "dry-run", help: "preview, write nothing"},
	{name: "keep-theirs", help: "leave conflicted files"},
	{name: "merge", help: "keep later edits on other lines"},
	{name: "force", help: "restore anyway, recording what it overwrites"},
}

// flagWords is each flag as spelled on the command line; with values,
// only the flags that take one.
func flagWords(values bool) []string {
	var words []string
	for _, f := range completionFlags {
		if !values || f.value != "" {
			words = append(words, "--"+f.name)
		}
	}
	return words
}

// completionWords lists the first words of the commands and, for those
// with subcommands, the second words.
func completionWords() (top []string, subs map[string][]string) {
	subs = make(map[string][]string)
	add := func(w string) {
		if !slices.Contains(top, w) {
			top = append(top, w)
		}
	}
	for _, c := range commands {
		first, second, ok := strings.Cut(c.name, " ")
		add(first)
		if ok {
			subs[first] = append(subs[first], second)
		}
	}
	for _, w := range []string{"version", "completion", "help"} {
		add(w)
	}
	subs["completion"] = []string{"bash", "zsh", "fish"}
	return top, subs
}

func bashCompletion(top []string, subs map[string][]string) string {
	var b strings.Builder
	b.WriteString("# bash completion for hostctl (hostctl completion bash)\n_hostctl() {\n")
	b.WriteString("  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n")
	b.WriteString("  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '" + strings.Join(flagWords(false), " ") + "' -- \"$cur\")); return; fi\n")
	b.WriteString("  if [[ $prev == --socket ]]; then COMPREPLY=($(compgen -f -- \"$cur\")); return; fi\n")
	b.WriteString("  local words=() w pw=\n  for w in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do\n")
	// A flag's value is not a command word (review rewind S --prompt P).
	var isValue []string
	for _, f := range flagWords(true) {
		isValue = append(isValue, "$pw == "+f)
	}
	b.WriteString("    case $w in -*) ;; *) [[ " + strings.Join(isValue, " || ") + " ]] || words+=(\"$w\");; esac; pw=$w\n  done\n")
	b.WriteString("  case ${#words[@]} in\n")
	b.WriteString("  0) COMPREPLY=($(compgen -W '" + strings.Join(top, " ") + "' -- \"$cur\"));;\n")
	b.WriteString("  1) case ${words[0]} in\n")
	for _, k := range sortedKeys(subs) {
		b.WriteString("     " + k + ") COMPREPLY=($(compgen -W '" + strings.Join(subs[k], " ") + "' -- \"$cur\"));;\n")
	}
	b.WriteString("     esac;;\n  esac\n")
	// What the daemon knows (session ids, toolCallIds, method names); the
	// words typed so far, flags and all, say where and which.
	b.WriteString("  if (( ${#words[@]} > 0 )); then\n")
	b.WriteString("    local dyn; dyn=$(\"${COMP_WORDS[0]}\" " + completeCommand + " \"${COMP_WORDS[@]:1:COMP_CWORD-1}\" 2>/dev/null)\n")
	b.WriteString("    COMPREPLY+=($(compgen -W \"$dyn\" -- \"$cur\"))\n  fi\n")
	b.WriteString("}\ncomplete -F _hostctl hostctl\n")
	return b.String()
}

func zshCompletion(top []string, subs map[string][]string) string {
	var b strings.Builder
	b.WriteString("#compdef hostctl\n# zsh completion for hostctl (hostctl completion zsh)\n_hostctl() {\n")
	b.WriteString("  _arguments")
	for _, f := range completionFlags {
		b.WriteString(" '--" + f.name + "[" + f.help + "]")
		if f.value != "" {
			b.WriteString(":" + f.value + ":")
		}
		if f.file {
			b.WriteString("_files")
		}
		b.WriteString("'")
	}
	b.WriteString(" '*::arg:->args'\n")
	b.WriteString("  case $CURRENT in\n")
	b.WriteString("  1) compadd -- " + strings.Join(top, " ") + ";;\n")
	b.WriteString("  2) case $words[1] in\n")
	for _, k := range sortedKeys(subs) {
		b.WriteString("     " + k + ") compadd -- " + strings.Join(subs[k], " ") + ";;\n")
	}
	b.WriteString("     esac;;\n  esac\n")
	b.WriteString("  if (( CURRENT > 1 )); then\n")
	b.WriteString("    local -a dyn; dyn=(${(f)\"$(hostctl " + completeCommand + " ${opt_args[--socket]:+--socket=${opt_args[--socket]}} ${words[1,CURRENT-1]} 2>/dev/null)\"})\n")
	b.WriteString("    (( ${#dyn} )) && compadd -- $dyn\n  fi\n")
	b.WriteString("}\ncompdef _hostctl hostctl\n")
	return b.String()
}

func fishCompletion(top []string, subs map[string][]string) string {
	var b strings.Builder
	b.WriteString("# fish completion for hostctl (hostctl completion fish)\ncomplete -c hostctl -f\n")
	// __hostctl_args prints the words typed so far that are not flags
	// (nor a flag's value); __hostctl_at says whether
	// they are exactly its arguments. A command's second words are
	// offered only right after it, as bash and zsh do.
	b.WriteString(`function __hostctl_args
    set -l skip 0
    for t in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $t
            case ` + strings.Join(flagWords(true), " ") + `
                set skip 1
            case '-*'
            case '*'
                echo $t
        end
    end
end
function __hostctl_at
    set -l w (__hostctl_args)
    test "$w" = "$argv"
end
`)
	for _, f := range completionFlags {
		kind := ""
		switch {
		case f.file:
			kind = " -r -F"
		case f.value != "":
			kind = " -x"
		}
		b.WriteString("complete -c hostctl -l " + f.name + kind + " -d '" + f.help + "'\n")
	}
	b.WriteString("complete -c hostctl -n __hostctl_at -a '" + strings.Join(top, " ") + "'\n")
	for _, k := range sortedKeys(subs) {
		b.WriteString("complete -c hostctl -n '__hostctl_at " + k + "' -a '" + strings.Join(subs[k], " ") + "'\n")
	}
	b.WriteString("complete -c hostctl -a '(hostctl " + completeCommand + " (commandline -opc)[2..-1] 2>/dev/null)'\n")
	return b.String()
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
