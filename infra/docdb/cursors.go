package main

// FerretDB on PostgreSQL keeps one pooled PostgreSQL connection per open cursor (the rows of the
// query that a find or aggregate did not return in its first batch), until the cursor is
// exhausted, killed, or the FerretDB connection that opened it ends. Its pool is small (50 by
// default), and FerretDB waits for a free pool connection with no time limit: once the open
// cursors hold the whole pool, every command that needs PostgreSQL waits forever — ping too,
// and every metadata read, queued behind a create that holds FerretDB's registry lock while it
// waits. The cursors' owners cannot free them either: FerretDB notices that a client went away
// only between two commands, and an owner whose command is itself waiting for the pool never
// gets there, even after its process died. So the proxy keeps the books of the open cursors
// and kills them itself, on a connection of its own:
//   - beyond a bound below the pool size, the least recently used cursor is killed;
//   - a cursor unused for the idle timeout is killed, as MongoDB does (10 minutes there);
//   - the cursors of a client connection are killed as soon as that client goes away.
// A client that later asks for more from a killed cursor gets MongoDB's answer for an expired
// cursor (CursorNotFound), never a hang.

import (
	"bufio"
	"encoding/binary"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson"
)

// session is one client connection, the owner of the cursors it opened.
type session struct{ _ byte }

type openCursor struct {
	id       int64
	db, coll string
	owner    *session
	lastUsed time.Time
	busy     int // getMore commands in flight
}

type cursorBook struct {
	upstream string
	max      int
	idle     time.Duration
	logger   *slog.Logger

	mu   sync.Mutex
	open map[int64]*openCursor

	kills chan []*openCursor
}

func newCursorBook(upstream string, max int, idle time.Duration, logger *slog.Logger) *cursorBook {
	b := &cursorBook{
		upstream: upstream, max: max, idle: idle, logger: logger,
		open:  map[int64]*openCursor{},
		kills: make(chan []*openCursor, 1024),
	}
	go b.killer()
	if idle > 0 {
		go b.sweeper()
	}
	return b
}

// requestSeen notes what a request does to the cursors, before it is relayed. It returns the
// cursor a getMore continues (0 for other commands).
func (b *cursorBook) requestSeen(req []byte) (getMoreID int64) {
	body := msgBody(req)
	if body == nil {
		return 0
	}
	first, err := body.IndexErr(0)
	if err != nil {
		return 0
	}
	switch strings.ToLower(first.Key()) {
	case "getmore":
		id, ok := first.Value().Int64OK()
		if !ok {
			return 0
		}
		b.mu.Lock()
		if c := b.open[id]; c != nil {
			c.busy++
			c.lastUsed = time.Now()
		}
		b.mu.Unlock()
		return id
	case "killcursors":
		ids, _ := body.Lookup("cursors").ArrayOK()
		values, _ := ids.Values()
		b.mu.Lock()
		for _, v := range values {
			if id, ok := v.Int64OK(); ok {
				delete(b.open, id)
			}
		}
		b.mu.Unlock()
	}
	return 0
}

// replySeen notes the cursor a reply opens, continues or ends.
func (b *cursorBook) replySeen(owner *session, getMoreID int64, reply []byte) {
	id, ns, ok := replyCursor(reply)
	b.mu.Lock()
	defer b.mu.Unlock()
	if getMoreID != 0 {
		c := b.open[getMoreID]
		if c == nil {
			return
		}
		c.busy--
		c.lastUsed = time.Now()
		if !ok || id == 0 { // exhausted, or an error (FerretDB closes a cursor that failed)
			delete(b.open, getMoreID)
		}
		return
	}
	if !ok || id == 0 {
		return
	}
	db, coll, _ := strings.Cut(ns, ".")
	b.open[id] = &openCursor{id: id, db: db, coll: coll, owner: owner, lastUsed: time.Now()}
	if len(b.open) > b.max {
		if victim := b.leastRecentlyUsed(id); victim != nil {
			b.logger.Warn("too many open cursors: killing the least recently used one",
				"limit", b.max, "cursor", victim.id, "db", victim.db, "collection", victim.coll,
				"idle", time.Since(victim.lastUsed).Round(time.Millisecond))
			b.remove([]*openCursor{victim})
		}
	}
}

// ownerGone kills every cursor of a client connection that ended.
func (b *cursorBook) ownerGone(owner *session) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var theirs []*openCursor
	for _, c := range b.open {
		if c.owner == owner {
			theirs = append(theirs, c)
		}
	}
	b.remove(theirs)
}

// leastRecentlyUsed returns the cursor unused for longest, other than `except` and those in use.
func (b *cursorBook) leastRecentlyUsed(except int64) *openCursor {
	var oldest *openCursor
	for _, c := range b.open {
		if c.id != except && c.busy == 0 && (oldest == nil || c.lastUsed.Before(oldest.lastUsed)) {
			oldest = c
		}
	}
	return oldest
}

// remove forgets cursors and has them killed upstream. The caller holds b.mu.
func (b *cursorBook) remove(cs []*openCursor) {
	if len(cs) == 0 {
		return
	}
	for _, c := range cs {
		delete(b.open, c.id)
	}
	select {
	case b.kills <- cs:
	default: // the killer is far behind: log rather than hold up every relay
		b.logger.Error("cursor kill queue full: cursors left open", "count", len(cs))
	}
}

func (b *cursorBook) sweeper() {
	for range time.Tick(b.idle / 4) {
		b.mu.Lock()
		var expired []*openCursor
		for _, c := range b.open {
			if c.busy == 0 && time.Since(c.lastUsed) > b.idle {
				expired = append(expired, c)
			}
		}
		if len(expired) > 0 {
			b.logger.Info("killing idle cursors", "count", len(expired), "idle timeout", b.idle)
		}
		b.remove(expired)
		b.mu.Unlock()
	}
}

// killer sends killCursors upstream, one command per collection, on a connection of its own:
// the owner's connection may be busy, or waiting for the very pool connection being freed.
// killCursors itself needs no PostgreSQL connection.
func (b *cursorBook) killer() {
	for cs := range b.kills {
		byColl := map[[2]string][]int64{}
		for _, c := range cs {
			k := [2]string{c.db, c.coll}
			byColl[k] = append(byColl[k], c.id)
		}
		for k, ids := range byColl {
			if err := b.kill(k[0], k[1], ids); err != nil {
				b.logger.Warn("killCursors failed", "db", k[0], "collection", k[1], "error", err)
			}
		}
	}
}

func (b *cursorBook) kill(db, coll string, ids []int64) error {
	conn, err := net.DialTimeout("unix", b.upstream, 10*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		return err
	}
	body, err := bson.Marshal(bson.D{{Key: "killCursors", Value: coll}, {Key: "cursors", Value: ids}, {Key: "$db", Value: db}})
	if err != nil {
		return err
	}
	msg := make([]byte, headerLen+4+1, headerLen+4+1+len(body))
	msg = append(msg, body...)
	binary.LittleEndian.PutUint32(msg[0:], uint32(len(msg)))
	binary.LittleEndian.PutUint32(msg[4:], 1) // request id
	binary.LittleEndian.PutUint32(msg[12:], opMsg)
	if _, err := conn.Write(msg); err != nil {
		return err
	}
	_, err = readMessage(bufio.NewReader(conn))
	return err
}

// replyCursor returns the cursor of a command's reply: its id (0 once exhausted) and namespace.
func replyCursor(reply []byte) (id int64, ns string, ok bool) {
	body := msgBody(reply)
	if body == nil {
		return 0, "", false
	}
	cursor, isDoc := body.Lookup("cursor").DocumentOK()
	if !isDoc {
		return 0, "", false
	}
	id, ok = cursor.Lookup("id").Int64OK()
	ns, _ = cursor.Lookup("ns").StringValueOK()
	return id, ns, ok
}
