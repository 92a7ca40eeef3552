package core

import (
	"context"
	"errors"
)

// Meter is the one account of the work a request makes the fake do beyond reading and checking
// its body: parsing its beta headers, checking its strict schemas, generating a tool input or a
// structured output, matching it against the stubs. Each of those stages starts an allowance of
// steps (start) and charges, as it goes, what its work costs: a step for a value, a subschema
// visited or a stub tried, and a step for every stepBytes of text it reads, copies or looks up,
// so that work grows with the bytes a request sends only as far as the allowance goes. The
// allowances are stated in the README's Limits.
//
// The contract: charge reports false once the allowance is spent or the request's context has
// ended (the client went: looked at whenever the steps cross a multiple of 1,024, so cheaply),
// and keeps reporting false. The stage then stops at once, keeps nothing of what it made, and
// answers with refusal: a 400 naming the place where the work stopped. A client that went gets
// it too (it reads nothing; the journal does), so that a closed connection is not reported as
// a fault of the fake. A meter is one request's: it is not safe for use by several goroutines.
type Meter struct {
	ctx  context.Context
	Left int   // steps left of the allowance
	Err  error // why the work stopped: errOverBudget, a stage's own cause (stop), or ctx's error
}

// StepBytes is the text a step stands for: scanning, hashing or copying 64 bytes costs about as
// much as making one value (a few tens of nanoseconds).
const StepBytes = 64

// ErrOverBudget is a meter's error once its allowance is spent.
var ErrOverBudget = errors.New("over the allowance of work")

// Start begins a stage's allowance of steps, under ctx (nil: a stage no client can leave).
func (m *Meter) Start(ctx context.Context, steps int) {
	m.ctx, m.Left, m.Err = ctx, steps, nil
}

// Charge takes n steps and reports whether the work may go on.
func (m *Meter) Charge(n int) bool {
	if m.Err != nil {
		return false
	}
	before := m.Left
	m.Left -= n
	if m.Left < 0 {
		m.Err = ErrOverBudget
		return false
	}
	if before>>10 != m.Left>>10 && m.ctx != nil {
		if err := m.ctx.Err(); err != nil {
			m.Err = err
			return false
		}
	}
	return true
}

// ChargeBytes charges the work of reading n bytes of text: one step, and one per stepBytes.
func (m *Meter) ChargeBytes(n int) bool { return m.Charge(1 + n/StepBytes) }

// Stop ends the stage's work for a cause of its own (a pattern too costly on its own): charge
// reports false from now on, and the stage's refusal tells the cause by it.
func (m *Meter) Stop(cause error) {
	if m.Err == nil {
		m.Err = cause
	}
}

// Blame records, when the allowance ran out at this charge (not the client going), that cause
// spent it: the stage's refusal then names the place of that cause rather than the stage's.
func (m *Meter) Blame(cause error) {
	if m.Err == ErrOverBudget {
		m.Err = cause
	}
}

// Stopped reports whether the work has stopped, for whatever reason.
func (m *Meter) Stopped() bool { return m.Err != nil }

// Refusal is the error of a stage whose work stopped, nil while it goes on: the 400 naming path
// (the place the work stopped) with the message, which the stage formats since it knows what
// its steps are made of, or, when the client went, with errClientWent's.
func (m *Meter) Refusal(path, format string, args ...any) error {
	switch m.Err {
	case nil:
		return nil
	case m.ctxErr():
		return InvalidField(path, "%v (%v)", errClientWent, m.Err)
	}
	return InvalidField(path, format, args...)
}

// errClientWent says why work stopped that the request's context ended.
var errClientWent = errors.New("the work stopped here: the client closed the request")

// ctxErr is the context's error, nil when there is no context or it goes on.
func (m *Meter) ctxErr() error {
	if m.ctx == nil {
		return nil
	}
	return m.ctx.Err()
}

// Meter starts a stage's allowance of steps on the request's meter, under the request's
// context, and returns the meter.
func (c *Call) Meter(steps int) *Meter {
	c.Work.Start(c.Request.Context(), steps)
	return &c.Work
}
