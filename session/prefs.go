package session

import (
	"errors"
	"fmt"

	"github.com/hostd-dev/hostd/internal/quote"
	"github.com/hostd-dev/hostd/workspace"
)

// ErrBadPref is a session preference with a value hostd does not know
// (invalid params).
var ErrBadPref = errors.New("invalid session preference")

// ResultForm is how the edit tool renders a successful result's content
// (wire-contract session.create editResult; edit's result argument).
type ResultForm string

const (
	// FormFull re-displays every changed line with its new number.
	FormFull ResultForm = "full"
	// FormCompact gives the new tag and each changed region's old and new
	// span and the shift below it, re-displaying only the rows that
	// landed differently from what was sent.
	FormCompact ResultForm = "compact"
)

// DefaultResultForm is the form of a session that names none: compact,
// the model-facing default on every face (edit-contract §5.5), since what
// the model cannot know from its own request is the new tag, the new
// numbering and what the host changed, not the rows it just sent.
const DefaultResultForm = FormCompact

// ParseResultForm checks a form named by a client; "" is the default,
// DefaultResultForm.
func ParseResultForm(s string) (ResultForm, error) {
	switch ResultForm(s) {
	case "":
		return DefaultResultForm, nil
	case FormFull:
		return FormFull, nil
	case FormCompact:
		return FormCompact, nil
	}
	return "", fmt.Errorf("%w: edit result form %s is neither \"full\" nor \"compact\"", ErrBadPref, quote.Short(s))
}

// Prefs are a session's preferences, fixed when it is created: a session
// re-attached by id keeps the ones it was created with.
type Prefs struct {
	// EditResult is the form of the session's edit results when a call
	// does not choose one.
	EditResult ResultForm
}

// CreateWith is Create with preferences for a new session. A live session
// re-attached by id is returned with its own preferences.
func (m *Manager) CreateWith(id string, ws *workspace.Workspace, p Prefs) (*Session, error) {
	if p.EditResult == "" {
		p.EditResult = DefaultResultForm
	}
	if _, err := ParseResultForm(string(p.EditResult)); err != nil {
		return nil, err
	}
	return m.create(id, ws, p)
}
