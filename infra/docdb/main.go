// Command docdb runs FerretDB as a local, MongoDB-wire-compatible server, so the project runs
// and tests on a machine where MongoDB cannot be installed. FerretDB stores the data with its
// SQLite handler (files under -data; the default) or its PostgreSQL handler (-backend
// postgresql, a database given by -postgresql-url; see postgresql.go).
//
// FerretDB 1.x applies an update by reading the document, changing it in Go and writing it
// back, with nothing held in between (FerretDB issue #3040), whichever the handler. Concurrent
// `$inc`, `$push`, conditional updates and upserts on one document therefore lose updates, which
// breaks the single-document atomicity that MongoDB guarantees and our counters and quotas rely
// on (docs/architecture.md §11). So docdb does not expose FerretDB directly: FerretDB listens on
// a private Unix socket and docdb proxies the wire protocol to it from the TCP address, letting
// writes that may touch one document through one at a time: writes naming their documents by
// `_id` are ordered per document, any other write runs alone within its collection
// (writeorder.go). Reads are not held back.
//
// The proxy also keeps the open cursors within bounds, because on PostgreSQL each holds one of
// FerretDB's few database connections until it is exhausted (see cursors.go).
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof" // served only with -pprof
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/bson"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	backend := flag.String("backend", "sqlite", "FerretDB handler: sqlite or postgresql")
	dataDir := flag.String("data", ".data/docdb", "directory for the SQLite files (sqlite)")
	pgURL := flag.String("postgresql-url", "",
		"database URL (postgresql), e.g. postgres://postgres@/docdb?host=/run/postgresql")
	ginIndexes := flag.Bool("gin-indexes", true,
		"give FerretDB's indexes GIN companions so that lookups use them (postgresql)")
	logLevel := flag.String("log-level", "warn", "debug, info, warn or error")
	maxCursors := flag.Int("max-cursors", 0,
		"open cursors kept at most, the least recently used killed beyond (0: two thirds of FerretDB's PostgreSQL pool)")
	cursorIdle := flag.Duration("cursor-idle-timeout", 10*time.Minute,
		"an open cursor unused for this long is killed, as MongoDB does (0: never)")
	maxWrites := flag.Int("max-writes", 0,
		"write commands run upstream at once at most (0: what FerretDB's PostgreSQL pool leaves beside the cursors)")
	pprofAddr := flag.String("pprof", "",
		"address for Go's profiling endpoints, e.g. 127.0.0.1:6061 (/debug/pprof/profile?seconds=30); empty: none")
	gcPercent := flag.Int("gc-percent", 400,
		"Go's GOGC: heap growth over the live heap before a collection (FerretDB allocates per document)")
	flag.Parse()

	// Go's default (100) spent a sixth of docdb's CPU in the collector during the send benchmark,
	// with a live heap of a few MB: a bigger allowance trades a few tens of MB for that CPU.
	debug.SetGCPercent(*gcPercent)

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	cfg := &ferretdb.Config{Logger: logger, Handler: *backend}
	var where string // for the log
	switch *backend {
	case "sqlite":
		dir, err := filepath.Abs(*dataDir)
		if err != nil {
			fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fatal(err)
		}
		cfg.SQLiteURL = "file:" + dir + "/"
		where = dir
	case "postgresql":
		dbURL, err := checkPostgreSQLURL(*pgURL)
		if err != nil {
			fatal(err)
		}
		cfg.PostgreSQLURL = dbURL
		where = redactURL(dbURL)
	default:
		fatal(fmt.Errorf("-backend must be sqlite or postgresql, got %q", *backend))
	}

	if *maxCursors <= 0 {
		// A third of the pool stays free for the commands themselves, which wait for a pool
		// connection without a time limit.
		*maxCursors = max(1, poolSize(cfg.PostgreSQLURL)*2/3)
	}
	if *maxWrites <= 0 {
		// An update holds one pool connection while it waits for a second: with the cursors'
		// share taken, one connection must stay free for the first write in line to finish.
		*maxWrites = max(1, poolSize(cfg.PostgreSQLURL)-*maxCursors-1)
	}

	// First, so that a taken port fails before anything else is set up.
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fatal(err)
	}
	if *pprofAddr != "" {
		// To see where docdb's own CPU goes (the proxy and the embedded FerretDB): off unless asked.
		pln, err := net.Listen("tcp", *pprofAddr)
		if err != nil {
			fatal(err)
		}
		go func() { logger.Warn("pprof stopped", "error", http.Serve(pln, http.DefaultServeMux)) }()
	}

	// A short private path: Unix socket paths are limited to about 100 bytes.
	sockDir, err := os.MkdirTemp("", "docdb-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "ferretdb.sock")

	// Before FerretDB creates any table, so that the trigger sees every index. FerretDB itself
	// connects only at the first command: an unreachable database must fail here instead.
	if *backend == "postgresql" {
		if err := preparePostgreSQL(cfg.PostgreSQLURL, *ginIndexes, logger); err != nil {
			os.RemoveAll(sockDir)
			fatal(err)
		}
	}

	cfg.Listener = ferretdb.ListenerConfig{Unix: sock}
	f, err := ferretdb.New(cfg)
	if err != nil {
		os.RemoveAll(sockDir)
		fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	go func() {
		<-ctx.Done()
		ln.Close()
	}()

	logger.Info("docdb listening", "address", *listen, "backend", *backend, "data", where)
	p := &proxy{
		ctx: ctx, upstream: sock, logger: logger,
		writes:  newWriteLocks(*maxWrites),
		cursors: newCursorBook(sock, *maxCursors, *cursorIdle, logger),
	}
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			logger.Warn("accept failed", "error", err)
			continue
		}
		go p.serve(conn)
	}

	// Proxied connections close themselves on ctx; FerretDB then finishes and closes SQLite.
	if err := <-done; err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "docdb:", err)
	os.Exit(1)
}

// Wire protocol (https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/).
const (
	headerLen      = 16
	maxMessageLen  = 48 * 1024 * 1024
	opQuery        = 2004
	opGetMore      = 2005
	opCompressed   = 2012
	opMsg          = 2013
	flagChecksum   = 1 << 0
	flagMoreToCome = 1 << 1
)

type proxy struct {
	ctx      context.Context // done: every proxied connection is closed
	upstream string
	logger   *slog.Logger
	writes   *writeLocks
	cursors  *cursorBook
}

// serve relays one client connection to its own FerretDB connection, request by request.
// A reader of its own watches the client meanwhile, so that a client going away mid-relay is
// noticed at once: its cursors are killed and, unless a write is under way, its FerretDB
// connection is closed, even when the relay waits for a FerretDB that will never answer it.
func (p *proxy) serve(client net.Conn) {
	defer client.Close()
	raw, err := net.Dial("unix", p.upstream)
	if err != nil {
		p.logger.Error("cannot reach FerretDB", "error", err)
		return
	}
	up := &upstreamConn{Conn: raw}
	defer up.Close()
	// On shutdown, idle connections must not keep FerretDB waiting for their next request.
	defer context.AfterFunc(p.ctx, func() {
		client.Close()
		up.Close()
	})()
	owner := &session{}
	defer p.cursors.ownerGone(owner)

	requests := make(chan []byte)
	gone := make(chan struct{}) // closed when the client cannot be read any more
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		defer close(gone)
		fromClient := bufio.NewReader(client)
		for {
			req, err := readMessage(fromClient)
			if err != nil {
				if !errors.Is(err, io.EOF) {
					p.logger.Debug("client read failed", "error", err)
				}
				return
			}
			select {
			case requests <- req:
			case <-finished:
				return
			}
		}
	}()
	go func() {
		select {
		case <-gone:
			p.cursors.ownerGone(owner)
			up.closeUnlessWriting()
		case <-finished:
		}
	}()

	fromUp := bufio.NewReader(up)
	for {
		select {
		case req := <-requests:
			if err := p.relay(owner, req, client, up, fromUp); err != nil {
				p.logger.Debug("relay failed", "error", err)
				return
			}
		case <-gone:
			return
		}
	}
}

// upstreamConn is a FerretDB connection that is not closed while a write runs on it: the write
// lock is released only once FerretDB answered, else the next write to the collection could
// run alongside this one.
type upstreamConn struct {
	net.Conn
	mu      sync.Mutex
	writing bool
	closed  bool
}

var errClientGone = errors.New("client went away")

// beginWrite marks a write as under way; false once the connection is closed.
func (u *upstreamConn) beginWrite() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return false
	}
	u.writing = true
	return true
}

func (u *upstreamConn) endWrite() {
	u.mu.Lock()
	u.writing = false
	u.mu.Unlock()
}

// closeUnlessWriting closes the connection, unless a write is under way (serve closes it when
// that write is answered).
func (u *upstreamConn) closeUnlessWriting() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if !u.writing {
		u.closed = true
		u.Conn.Close()
	}
}

// relay sends one request upstream and copies its reply (or replies) back to the client,
// holding the write lock from sending the request to receiving the reply.
func (p *proxy) relay(owner *session, req []byte, client net.Conn, up *upstreamConn, fromUp *bufio.Reader) error {
	if scope, ok := writeTarget(req); ok {
		defer p.writes.lock(scope)()
		if !up.beginWrite() {
			return errClientGone
		}
		defer up.endWrite()
	}
	getMoreID := p.cursors.requestSeen(req)
	if _, err := up.Write(req); err != nil {
		p.cursors.replySeen(owner, getMoreID, nil)
		return err
	}
	if !expectsReply(req) {
		return nil
	}
	for {
		reply, err := readMessage(fromUp)
		if err != nil {
			p.cursors.replySeen(owner, getMoreID, nil)
			return err
		}
		// A client that went away must not stop us reading the reply: the lock is held until then.
		_, werr := client.Write(reply)
		if !moreToCome(reply) {
			p.cursors.replySeen(owner, getMoreID, reply)
			return werr
		}
	}
}

func readMessage(r *bufio.Reader) ([]byte, error) {
	header, err := r.Peek(headerLen)
	if err != nil {
		if len(header) == 0 && errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, err
	}
	n := int(int32(binary.LittleEndian.Uint32(header)))
	if n < headerLen || n > maxMessageLen {
		return nil, fmt.Errorf("bad message length %d", n)
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(r, msg); err != nil {
		return nil, err
	}
	return msg, nil
}

func opCode(msg []byte) int32 { return int32(binary.LittleEndian.Uint32(msg[12:16])) }

func msgFlags(msg []byte) uint32 {
	if len(msg) < headerLen+4 || opCode(msg) != opMsg {
		return 0
	}
	return binary.LittleEndian.Uint32(msg[16:20])
}

func moreToCome(msg []byte) bool { return msgFlags(msg)&flagMoreToCome != 0 }

func expectsReply(msg []byte) bool {
	switch opCode(msg) {
	case opMsg:
		return !moreToCome(msg)
	case opQuery, opGetMore, opCompressed:
		return true
	default: // legacy OP_INSERT, OP_UPDATE, OP_DELETE, OP_KILL_CURSORS: no reply
		return false
	}
}

// msgBody returns the kind-0 section of an OP_MSG, or nil.
func msgBody(msg []byte) bson.Raw {
	if len(msg) < headerLen+5 || opCode(msg) != opMsg {
		return nil
	}
	end := len(msg)
	if msgFlags(msg)&flagChecksum != 0 {
		end -= 4
	}
	for i := headerLen + 4; i+5 <= end; {
		kind := msg[i]
		size := int(int32(binary.LittleEndian.Uint32(msg[i+1 : i+5])))
		if size < 5 || i+1+size > end {
			return nil
		}
		if kind == 0 {
			return bson.Raw(msg[i+1 : i+1+size])
		}
		i += 1 + size
	}
	return nil
}
