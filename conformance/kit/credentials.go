package kit

import (
	"fmt"
	"time"
)

// NeedCredential ends the check as unsupported, naming the variable to set, when r needs a
// credential that is not set, exactly as Do would on sending r. A check that creates something
// and then reads or removes it with another credential calls it first, so that it never makes
// what it could not then see or undo.
func (t *T) NeedCredential(r Request) {
	if line := t.Target.missingCredential(&r); line != "" {
		t.Unsupported("%s", line)
	}
}

// unsent is the error of a cleanup that was not sent because its credential is not set: a
// request without it could only be refused, and would read as the target's failure.
func unsent(line string) error {
	return fmt.Errorf("not sent: %s", line)
}

// Wait lets seconds of the target's time pass: through Target.WaitFunc when set, else by
// waiting them in real time (a check that calls it carries the label slow). A run stopped
// meanwhile ends the check as the suite's error.
func (t *T) Wait(seconds int) {
	if t.Target.WaitFunc != nil {
		if err := t.Target.WaitFunc(t.ctx, seconds); err != nil {
			t.SuiteErrorf("letting %d s pass: %v", seconds, err)
		}
		return
	}
	select {
	case <-time.After(time.Duration(seconds) * time.Second):
	case <-t.ctx.Done():
		t.SuiteErrorf("stopped while waiting %d s: %v", seconds, t.ctx.Err())
	}
}
