package main

// Write ordering. FerretDB changes a document by reading it, changing it in Go and writing it
// back with nothing held in between, so two writes that may touch one document must not overlap.
// Writes naming exactly which documents they may touch (an `_id` equality in every statement's
// filter, or each inserted document's `_id`) are ordered per document, so that writes to
// different documents of one collection run side by side. Every other write of a collection
// (a filter on other fields, a multi-document condition, an upsert that may create a document
// with a new `_id`, index and collection commands) may touch any document: it runs alone within
// its collection, as all writes did before. Database-wide commands run alone within the database.
//
// Locks are taken from the widest to the narrowest (database, collection, documents in sorted
// order), and only then a slot among the writes allowed upstream at once, so that no two writes
// ever wait for each other in a cycle.

import (
	"encoding/binary"
	"slices"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsontype"
)

// Commands that change data or metadata. Those naming a collection run within it; the others
// (dropDatabase, renameCollection) run alone within their database.
var writeCommands = map[string]bool{
	"insert": true, "update": true, "delete": true, "findandmodify": true,
	"create": true, "createindexes": true, "dropindexes": true, "drop": true,
	"collmod": true, "compact": true,
	"dropdatabase": true, "renamecollection": true,
}

// writeScope is what a write command may change.
type writeScope struct {
	db   string
	coll string   // empty: the whole database
	docs []string // the only documents it may change (sorted, distinct keys); nil: any of coll
}

// writeTarget returns the scope of an OP_MSG write command; ok is false for anything else.
func writeTarget(msg []byte) (scope writeScope, ok bool) {
	body, sequences := msgSections(msg)
	if body == nil {
		return writeScope{}, false
	}
	first, err := body.IndexErr(0)
	if err != nil {
		return writeScope{}, false
	}
	cmd := strings.ToLower(first.Key())
	if !writeCommands[cmd] {
		return writeScope{}, false
	}
	scope.db, _ = body.Lookup("$db").StringValueOK()
	if cmd == "dropdatabase" || cmd == "renamecollection" {
		return scope, true
	}
	scope.coll, _ = first.Value().StringValueOK()
	if scope.coll == "" {
		return scope, true
	}
	scope.docs = namedDocuments(cmd, body, sequences)
	return scope, true
}

// namedDocuments returns the keys of the only documents a data command may change, or nil when
// it may change others too (or when in doubt).
func namedDocuments(cmd string, body bson.Raw, sequences map[string][]bson.Raw) []string {
	var keys []string
	switch cmd {
	case "insert":
		for _, doc := range commandDocuments(body, sequences, "documents") {
			key, ok := idKey(doc.Lookup("_id"), false)
			if !ok {
				return nil
			}
			keys = append(keys, key)
		}
	case "update", "delete":
		field := map[string]string{"update": "updates", "delete": "deletes"}[cmd]
		for _, statement := range commandDocuments(body, sequences, field) {
			filter, ok := statement.Lookup("q").DocumentOK()
			if !ok {
				return nil
			}
			key, ok := filterKey(filter)
			if !ok {
				return nil
			}
			keys = append(keys, key)
		}
	case "findandmodify":
		filter, ok := body.Lookup("query").DocumentOK()
		if !ok {
			return nil
		}
		key, ok := filterKey(filter)
		if !ok {
			return nil
		}
		keys = append(keys, key)
	default: // index and collection commands
		return nil
	}
	if len(keys) == 0 {
		return nil
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// commandDocuments returns the documents of a command's array argument, given in the body or
// as a document sequence section (drivers may do either); nil when it cannot be read.
func commandDocuments(body bson.Raw, sequences map[string][]bson.Raw, field string) []bson.Raw {
	if docs, ok := sequences[field]; ok {
		return docs
	}
	array, ok := body.Lookup(field).ArrayOK()
	if !ok {
		return nil
	}
	values, err := array.Values()
	if err != nil {
		return nil
	}
	docs := make([]bson.Raw, 0, len(values))
	for _, v := range values {
		doc, ok := v.DocumentOK()
		if !ok {
			return nil
		}
		docs = append(docs, doc)
	}
	return docs
}

// filterKey returns the key of the one document a filter can match: the filter holds `_id`
// once, at the top level, as a plain value or `{$eq: value}`. Every other top-level condition
// can only narrow that down to no document, and an upsert creates the document with that `_id`.
func filterKey(filter bson.Raw) (string, bool) {
	elements, err := filter.Elements()
	if err != nil {
		return "", false
	}
	var id bson.RawValue
	found := 0
	for _, e := range elements {
		if e.Key() == "_id" {
			id = e.Value()
			found++
		}
	}
	if found != 1 {
		return "", false
	}
	return idKey(id, true)
}

// idKey is the key of a document by its `_id`. Only strings and ObjectIds are keyed: their BSON
// bytes are equal exactly when MongoDB and FerretDB take them as equal, whereas numbers of
// different types compare equal (1, 1.0 and 1L are one `_id`) and documents compare by rules the
// proxy would have to repeat. In a filter, `{$eq: value}` is the same as the plain value.
func idKey(v bson.RawValue, inFilter bool) (string, bool) {
	if inFilter && v.Type == bsontype.EmbeddedDocument {
		doc := v.Document()
		elements, err := doc.Elements()
		if err != nil || len(elements) != 1 || elements[0].Key() != "$eq" {
			return "", false
		}
		v = elements[0].Value()
	}
	switch v.Type {
	case bsontype.String:
		if _, ok := v.StringValueOK(); !ok {
			return "", false
		}
	case bsontype.ObjectID:
		if len(v.Value) != 12 {
			return "", false
		}
	default:
		return "", false
	}
	return string(byte(v.Type)) + string(v.Value), true
}

// msgSections returns the body (kind 0) of an OP_MSG and its document sequences (kind 1) by
// identifier; body is nil when msg is not a well-formed OP_MSG.
func msgSections(msg []byte) (body bson.Raw, sequences map[string][]bson.Raw) {
	if len(msg) < headerLen+5 || opCode(msg) != opMsg {
		return nil, nil
	}
	end := len(msg)
	if msgFlags(msg)&flagChecksum != 0 {
		end -= 4
	}
	for i := headerLen + 4; i < end; {
		if i+5 > end {
			return nil, nil
		}
		kind := msg[i]
		size := int(int32(binary.LittleEndian.Uint32(msg[i+1 : i+5])))
		if size < 5 || i+1+size > end {
			return nil, nil
		}
		section := msg[i+1 : i+1+size]
		switch kind {
		case 0:
			body = bson.Raw(section)
		case 1:
			name, docs, ok := documentSequence(section)
			if !ok {
				return nil, nil
			}
			if sequences == nil {
				sequences = map[string][]bson.Raw{}
			}
			sequences[name] = docs
		default:
			return nil, nil
		}
		i += 1 + size
	}
	return body, sequences
}

// documentSequence reads a kind-1 section: its size, a C string naming it, then documents.
func documentSequence(section []byte) (name string, docs []bson.Raw, ok bool) {
	rest := section[4:]
	nul := slices.Index(rest, 0)
	if nul < 0 {
		return "", nil, false
	}
	name, rest = string(rest[:nul]), rest[nul+1:]
	for len(rest) > 0 {
		if len(rest) < 5 {
			return "", nil, false
		}
		n := int(int32(binary.LittleEndian.Uint32(rest)))
		if n < 5 || n > len(rest) {
			return "", nil, false
		}
		docs = append(docs, bson.Raw(rest[:n]))
		rest = rest[n:]
	}
	return name, docs, true
}

// writeLocks orders writes as writeScope says, and lets at most a bounded number of them run
// upstream at once.
type writeLocks struct {
	dbs   sync.Map      // database name -> *dbLocks
	slots chan struct{} // one per write under way upstream
}

// newWriteLocks bounds the writes under way upstream. On PostgreSQL, FerretDB's update and
// findAndModify hold one pooled connection for their query while taking a second one for the
// write, and wait for it without a time limit: writes enough to hold every free connection that
// way would wait for each other for good.
func newWriteLocks(maxWrites int) *writeLocks {
	return &writeLocks{slots: make(chan struct{}, max(1, maxWrites))}
}

type dbLocks struct {
	whole       sync.RWMutex // shared by collection writes, exclusive for database-wide ones
	collections sync.Map     // collection name -> *collectionLocks
}

type collectionLocks struct {
	whole sync.RWMutex // shared by writes to named documents, exclusive for the others
	mu    sync.Mutex   // guards docs
	docs  map[string]*documentLock
}

type documentLock struct {
	sync.Mutex
	users int // holding or waiting; the entry is dropped at zero
}

// lock waits until the write may run, and returns what lets the next ones run.
func (w *writeLocks) lock(scope writeScope) (unlock func()) {
	v, _ := w.dbs.LoadOrStore(scope.db, &dbLocks{})
	d := v.(*dbLocks)
	if scope.coll == "" {
		d.whole.Lock()
		w.slots <- struct{}{}
		return func() {
			<-w.slots
			d.whole.Unlock()
		}
	}
	d.whole.RLock()
	v, _ = d.collections.LoadOrStore(scope.coll, &collectionLocks{docs: map[string]*documentLock{}})
	c := v.(*collectionLocks)
	if scope.docs == nil {
		c.whole.Lock()
		w.slots <- struct{}{}
		return func() {
			<-w.slots
			c.whole.Unlock()
			d.whole.RUnlock()
		}
	}
	c.whole.RLock()
	held := make([]*documentLock, 0, len(scope.docs))
	for _, key := range scope.docs { // sorted: two writes never wait for each other's documents
		held = append(held, c.lockDocument(key))
	}
	w.slots <- struct{}{}
	return func() {
		<-w.slots
		for i, l := range held {
			c.unlockDocument(scope.docs[i], l)
		}
		c.whole.RUnlock()
		d.whole.RUnlock()
	}
}

func (c *collectionLocks) lockDocument(key string) *documentLock {
	c.mu.Lock()
	l := c.docs[key]
	if l == nil {
		l = &documentLock{}
		c.docs[key] = l
	}
	l.users++
	c.mu.Unlock()
	l.Lock()
	return l
}

func (c *collectionLocks) unlockDocument(key string, l *documentLock) {
	l.Unlock()
	c.mu.Lock()
	l.users--
	if l.users == 0 {
		delete(c.docs, key)
	}
	c.mu.Unlock()
}
