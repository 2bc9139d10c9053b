package main

import (
	"encoding/binary"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// doc builds a BSON document from keys and values in turn.
func doc(pairs ...any) bson.D {
	d := bson.D{}
	for i := 0; i+1 < len(pairs); i += 2 {
		d = append(d, bson.E{Key: pairs[i].(string), Value: pairs[i+1]})
	}
	return d
}

// opMsgOf builds an OP_MSG with the command as its body and the given document sequences.
func opMsgOf(t *testing.T, cmd bson.D, sequences map[string][]bson.D) []byte {
	t.Helper()
	body, err := bson.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, headerLen+4)
	binary.LittleEndian.PutUint32(msg[12:16], opMsg)
	msg = append(append(msg, 0), body...)
	for name, docs := range sequences {
		section := binary.LittleEndian.AppendUint32(nil, 0)
		section = append(append(section, name...), 0)
		for _, d := range docs {
			raw, err := bson.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			section = append(section, raw...)
		}
		binary.LittleEndian.PutUint32(section, uint32(len(section)))
		msg = append(append(msg, 1), section...)
	}
	binary.LittleEndian.PutUint32(msg, uint32(len(msg)))
	return msg
}

func stringKey(t *testing.T, id string) string {
	t.Helper()
	_, raw, err := bson.MarshalValue(id)
	if err != nil {
		t.Fatal(err)
	}
	return "\x02" + string(raw)
}

func TestWriteTargetNamesTheDocumentsOfWritesByID(t *testing.T) {
	oid := primitive.NewObjectID()
	cases := []struct {
		name string
		msg  []byte
		want []string
	}{
		{"update by _id", opMsgOf(t, doc("update", "c", "updates", bson.A{
			doc("q", doc("_id", "b", "status", "pending"), "u", doc("$inc", doc("n", 1))),
			doc("q", doc("_id", "a"), "u", doc("$set", doc("x", 1)), "upsert", true),
			doc("q", doc("_id", doc("$eq", "b")), "u", doc("$inc", doc("n", 1))),
		}, "$db", "d"), nil), []string{stringKey(t, "a"), stringKey(t, "b")}},
		{"updates as a document sequence", opMsgOf(t, doc("update", "c", "$db", "d"),
			map[string][]bson.D{"updates": {doc("q", doc("_id", "a"), "u", doc())}}),
			[]string{stringKey(t, "a")}},
		{"insert", opMsgOf(t, doc("insert", "c", "$db", "d"),
			map[string][]bson.D{"documents": {doc("_id", "z"), doc("_id", "y", "v", 1)}}),
			[]string{stringKey(t, "y"), stringKey(t, "z")}},
		{"delete by _id", opMsgOf(t, doc("delete", "c", "deletes", bson.A{
			doc("q", doc("_id", "a"), "limit", 1),
		}, "$db", "d"), nil), []string{stringKey(t, "a")}},
		{"findAndModify by ObjectId", opMsgOf(t, doc("findAndModify", "c", "query", doc("_id", oid), "update", doc("$inc", doc("n", 1)), "$db", "d"), nil),
			[]string{"\x07" + string(oid[:])}},
	}
	for _, c := range cases {
		scope, ok := writeTarget(c.msg)
		if !ok || scope.db != "d" || scope.coll != "c" || !slices.Equal(scope.docs, c.want) {
			t.Errorf("%s: got %+v %v, want documents %q of d.c", c.name, scope, ok, c.want)
		}
	}
}

func TestWriteTargetKeepsOtherWritesCollectionWide(t *testing.T) {
	byID := doc("q", doc("_id", "a"), "u", doc())
	cases := map[string][]byte{
		"a filter on another field": opMsgOf(t, doc("update", "c", "updates", bson.A{
			doc("q", doc("company_id", "a"), "u", doc()),
		}, "$db", "d"), nil),
		"one statement of several not by _id": opMsgOf(t, doc("update", "c", "updates", bson.A{
			byID, doc("q", doc(), "u", doc(), "multi", true),
		}, "$db", "d"), nil),
		"_id among several values": opMsgOf(t, doc("delete", "c", "deletes", bson.A{
			doc("q", doc("_id", doc("$in", bson.A{"a", "b"})), "limit", 0),
		}, "$db", "d"), nil),
		"_id by a range": opMsgOf(t, doc("findAndModify", "c", "query", doc("_id", doc("$gte", "a")), "remove", true, "$db", "d"), nil),
		"a numeric _id": opMsgOf(t, doc("update", "c", "updates", bson.A{
			doc("q", doc("_id", 1), "u", doc()),
		}, "$db", "d"), nil),
		"_id twice": opMsgOf(t, doc("update", "c", "updates", bson.A{
			doc("q", doc("_id", "a", "_id", "b"), "u", doc()),
		}, "$db", "d"), nil),
		"_id only inside $or": opMsgOf(t, doc("update", "c", "updates", bson.A{
			doc("q", doc("$or", bson.A{doc("_id", "a"), doc("_id", "b")}), "u", doc()),
		}, "$db", "d"), nil),
		"an inserted document without _id": opMsgOf(t, doc("insert", "c", "documents", bson.A{doc("_id", "a"), doc("v", 1)}, "$db", "d"), nil),
		"an index command":                 opMsgOf(t, doc("createIndexes", "c", "indexes", bson.A{doc("key", doc("x", 1), "name", "x_1")}, "$db", "d"), nil),
	}
	for name, msg := range cases {
		scope, ok := writeTarget(msg)
		if !ok || scope.db != "d" || scope.coll != "c" || scope.docs != nil {
			t.Errorf("%s: got %+v %v, want all of d.c", name, scope, ok)
		}
	}
	if scope, ok := writeTarget(opMsgOf(t, doc("dropDatabase", 1, "$db", "d"), nil)); !ok ||
		scope.db != "d" || scope.coll != "" {
		t.Errorf("dropDatabase: got %+v %v, want all of d", scope, ok)
	}
	if _, ok := writeTarget(opMsgOf(t, doc("find", "c", "filter", doc(), "$db", "d"), nil)); ok {
		t.Error("find: taken for a write")
	}
}

// acquired reports whether lock returns within wait, and gives its unlock.
func acquired(w *writeLocks, scope writeScope, wait time.Duration) (bool, chan func()) {
	got := make(chan func(), 1)
	go func() { got <- w.lock(scope) }()
	select {
	case unlock := <-got:
		got <- unlock
		return true, got
	case <-time.After(wait):
		return false, got
	}
}

func TestWriteLocksLetDifferentDocumentsRunSideBySide(t *testing.T) {
	w := newWriteLocks(16)
	a := writeScope{db: "d", coll: "c", docs: []string{"a"}}
	b := writeScope{db: "d", coll: "c", docs: []string{"b"}}
	ab := writeScope{db: "d", coll: "c", docs: []string{"a", "b"}}
	whole := writeScope{db: "d", coll: "c"}
	const soon, notYet = 10 * time.Second, 100 * time.Millisecond

	unlockA := w.lock(a)
	if ok, got := acquired(w, b, soon); !ok {
		t.Fatal("a write to document b waited for one to document a")
	} else {
		(<-got)()
	}
	ok, sameDoc := acquired(w, ab, notYet)
	if ok {
		t.Fatal("a write to documents a and b ran beside one to document a")
	}
	okWhole, wholeGot := acquired(w, whole, notYet)
	if okWhole {
		t.Fatal("a collection-wide write ran beside one to document a")
	}
	unlockA()
	select {
	case unlock := <-sameDoc:
		unlock()
	case <-time.After(soon):
		t.Fatal("the write to documents a and b did not follow")
	}
	select {
	case unlock := <-wholeGot:
		if ok, got := acquired(w, b, notYet); ok {
			t.Fatal("a write to document b ran beside a collection-wide write")
		} else {
			unlock()
			(<-got)()
		}
	case <-time.After(soon):
		t.Fatal("the collection-wide write did not follow")
	}
	if ok, got := acquired(w, writeScope{db: "d", coll: "other"}, soon); !ok {
		t.Fatal("a write to another collection waited")
	} else {
		(<-got)()
	}
}

func TestWriteLocksBoundTheWritesUnderWay(t *testing.T) {
	w := newWriteLocks(2)
	u1 := w.lock(writeScope{db: "d", coll: "c", docs: []string{"a"}})
	u2 := w.lock(writeScope{db: "d", coll: "c", docs: []string{"b"}})
	ok, got := acquired(w, writeScope{db: "d", coll: "c", docs: []string{"c"}}, 100*time.Millisecond)
	if ok {
		t.Fatal("a third write ran beside two with two slots")
	}
	u1()
	select {
	case unlock := <-got:
		unlock()
	case <-time.After(10 * time.Second):
		t.Fatal("the third write did not follow")
	}
	u2()
}
