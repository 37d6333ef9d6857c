package booking

import "sync"

// executor runs jobs on a fixed number of workers from a bounded queue.
// Submitting never blocks: a full queue is reported to the caller, which
// decides what to drop or park, so a burst of work can never stall the
// response stream that triggered it.
type executor struct {
	jobs chan func()
	stop chan struct{}
	wg   sync.WaitGroup
}

func newExecutor(workers, queue int) *executor {
	e := &executor{jobs: make(chan func(), queue), stop: make(chan struct{})}
	for range workers {
		e.wg.Add(1)
		go e.work()
	}
	return e
}

func (e *executor) work() {
	defer e.wg.Done()
	for {
		select {
		case <-e.stop:
			return
		case job := <-e.jobs:
			job()
		}
	}
}

// submit queues job; false when the queue is full or the executor stopped.
func (e *executor) submit(job func()) bool {
	select {
	case <-e.stop:
		return false
	default:
	}
	select {
	case e.jobs <- job:
		return true
	default:
		return false
	}
}

// close stops the workers after their current job; queued jobs are dropped.
func (e *executor) close() {
	close(e.stop)
	e.wg.Wait()
}
