package halhost

import (
	"context"
	"errors"
	"testing"
	"time"
)

// At most maxStarts plugin starts run at once in a process: the next
// waits for a turn, and gives up when its context ends (issue 29.5: a
// sweep's workers all starting their plugins at once made the starts miss
// their handshake timeouts).
func TestStartsAreCapped(t *testing.T) {
	var held []func()
	for range maxStarts {
		release, err := startSlot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, release)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := startSlot(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("start %d of %d allowed at once: %v", maxStarts+1, maxStarts, err)
	}
	got := make(chan error, 1)
	go func() {
		release, err := startSlot(context.Background())
		if err == nil {
			release()
		}
		got <- err
	}()
	held[0]()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a start still waits after a turn was given back")
	}
	for _, r := range held[1:] {
		r()
	}
}
