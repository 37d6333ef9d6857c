package controlplane

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// process is a daemon started by the harness, with its output in a file.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	log  string
	once sync.Once
}

func startProcess(bin, logPath string, args ...string) (*process, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &process{name: filepath.Base(bin), cmd: cmd, done: make(chan struct{}), log: logPath}
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *process) pid() int {
	if p == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop ends the process by its PID: SIGTERM, then SIGKILL when it has not
// exited within the grace period. It returns once the process is reaped.
func (p *process) stop() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
}

func (p *process) logContains(s string) bool {
	data, _ := os.ReadFile(p.log)
	return strings.Contains(string(data), s)
}

func (p *process) logTail() string {
	data, _ := os.ReadFile(p.log)
	s := strings.TrimSpace(string(data))
	if len(s) > 3000 {
		s = s[len(s)-3000:]
	}
	return p.name + " log (tail):\n" + s
}
