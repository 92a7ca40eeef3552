package kit

import "fmt"

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

