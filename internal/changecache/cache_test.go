package changecache_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/changecache"
	"github.com/certhub/credentiald/internal/store/changefeed"
)

// The cache keeps only while it listens, and never keeps what a read got while a change was
// told (the change may have committed after the read); Forget forgets one key, ForgetAll every
// one; Update changes a kept value only; the nil cache keeps nothing.
func TestTheCacheKeepsOnlyWhatNoChangeOvertook(t *testing.T) {
	c := changecache.New[string, int](10)
	kept := func(k string) bool { _, ok := c.Get(k); return ok }

	gen, ok := c.Begin()
	c.Put(gen, "a", 1)
	if ok || kept("a") {
		t.Fatal("kept before listening")
	}
	c.Listening()
	if gen, ok = c.Begin(); !ok {
		t.Fatal("listening, but a read may not keep")
	}
	c.Put(gen, "a", 1)
	if !kept("a") {
		t.Fatal("not kept while listening")
	}

	gen, _ = c.Begin()
	c.Forget("a")
	c.Put(gen, "a", 1) // read before the change was told: perhaps before it committed
	if kept("a") {
		t.Fatal("a read that a change overtook was kept")
	}
	gen, _ = c.Begin()
	c.Forget("elsewhere")
	c.Put(gen, "a", 1)
	if kept("a") {
		t.Fatal("a read that any change overtook was kept")
	}

	gen, _ = c.Begin()
	c.Put(gen, "a", 1)
	c.Put(gen, "b", 2)
	c.Forget("b")
	if !kept("a") || kept("b") {
		t.Fatal("Forget forgot another key, or not its own")
	}
	c.Update("a", func(v int) (int, bool) { return v + 1, true })
	c.Update("b", func(v int) (int, bool) { return v + 1, true })
	if v, _ := c.Get("a"); v != 2 || kept("b") {
		t.Fatalf("Update: a is %d, b kept %v", v, kept("b"))
	}
	c.ForgetAll()
	if kept("a") {
		t.Fatal("ForgetAll left a value")
	}
	if gen, ok = c.Begin(); !ok {
		t.Fatal("ForgetAll stopped the keeping")
	}
	c.Put(gen, "a", 1)
	c.Lost()
	gen, ok = c.Begin()
	c.Put(gen, "b", 2)
	if ok || kept("a") || kept("b") {
		t.Fatal("kept after the listening connection was lost")
	}

	var none *changecache.Cache[string, int] // a size of 0
	none.Listening()
	gen, ok = none.Begin()
	none.Put(gen, "a", 1)
	if _, hit := none.Get("a"); ok || hit {
		t.Fatal("no cache kept something")
	}
}

// A Watcher forgets what Forgets names: one value, every value, or nothing; it keeps while
// listening and stops on a loss.
func TestTheWatcherForgetsWhatItsChangesName(t *testing.T) {
	c := changecache.New[string, int](10)
	w := changecache.Watcher[string, int]{Cache: c, Forgets: func(ch changefeed.Change) (string, bool, bool) {
		return ch.Code, ch.Code != "", ch.Account == uuid.Nil && ch.Code == ""
	}}
	w.Listening()
	put := func(keys ...string) {
		for _, k := range keys {
			gen, _ := c.Begin()
			c.Put(gen, k, 1)
		}
	}
	kept := func(k string) bool { _, ok := c.Get(k); return ok }
	put("a", "b")
	w.Changed(changefeed.Change{Account: uuid.New()}) // names nothing this cache keeps
	w.Changed(changefeed.Change{Certificate: uuid.New(), Code: "a"})
	if kept("a") || !kept("b") {
		t.Fatal("a change of one value forgot another, or not its own")
	}
	w.Changed(changefeed.Change{})
	if kept("b") {
		t.Fatal("a change that names nothing left a value")
	}
	put("a")
	w.Lost(errors.New("gone"))
	if kept("a") {
		t.Fatal("kept after a loss")
	}
}
