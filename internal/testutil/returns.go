package testutil

import (
	"testing"
	"time"
)

// Returns runs call and gives back its error, failing the test when call
// has not returned within ten seconds: a hang (a FIFO opened for reading,
// an endless input) must show as that test's failure, not as a test binary
// killed at its timeout. what names the call in the failure.
func Returns(t testing.TB, what string, call func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- call() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return: it waits on a FIFO or reads an endless input", what)
		return nil
	}
}
