//go:build !unix

package packaging

import "testing"

// lockDir does nothing where flock(2) is not to be had: two runs at once there may still clash.
func lockDir(t *testing.T, path string) {}
