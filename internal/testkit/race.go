package testkit

import "sync"

// Race runs f(0) … f(n-1) at once, released together, and counts the statuses they returned.
func Race(n int, f func(i int) int) map[int]int {
	statuses := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			statuses[i] = f(i)
		})
	}
	close(start)
	wg.Wait()
	counts := map[int]int{}
	for _, s := range statuses {
		counts[s]++
	}
	return counts
}
