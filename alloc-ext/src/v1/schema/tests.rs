use super::*;
use alloc::vec::Vec;

fn objects_of(shape: &Shape, out: &mut Vec<&'static ObjectShape<'static>>) {
    match shape {
        Shape::Object(o) => {
            out.push(o);
            for f in o.fields() {
                objects_of(&f.shape, out);
            }
        }
        Shape::Array { of, .. } | Shape::StringOr(of) => objects_of(of, out),
        Shape::Union(u) => {
            for m in u.members {
                objects_of(&Shape::Object(m), out);
            }
        }
        Shape::String
        | Shape::Pointer
        | Shape::Literal(_)
        | Shape::OneOf(_)
        | Shape::Boolean
        | Shape::Integer(_)
        | Shape::Json
        | Shape::JsonNotNull
        | Shape::JsonObject => {}
    }
}

fn unions_of(shape: &Shape, out: &mut Vec<&'static Union>) {
    match shape {
        Shape::Object(o) => {
            for f in o.fields() {
                unions_of(&f.shape, out);
            }
        }
        Shape::Array { of, .. } | Shape::StringOr(of) => unions_of(of, out),
        Shape::Union(u) => {
            out.push(u);
            for m in u.members {
                unions_of(&Shape::Object(m), out);
            }
        }
        Shape::String
        | Shape::Pointer
        | Shape::Literal(_)
        | Shape::OneOf(_)
        | Shape::Boolean
        | Shape::Integer(_)
        | Shape::Json
        | Shape::JsonNotNull
        | Shape::JsonObject => {}
    }
}

fn names(fields: &[FieldShape]) -> Vec<&'static str> {
    fields.iter().map(|f| f.name).collect()
}

#[test]
fn the_tables_are_consistent() {
    let mut objects = Vec::new();
    let mut unions = Vec::new();
    let mut fields = Vec::new();
    let known: Vec<EventType> = EventType::ALL
        .iter()
        .copied()
        .filter(|k| event_type(k.as_str()) == Some(*k))
        .collect();
    assert_eq!(known.len(), 31);
    for kind in known {
        event_fields(kind, &mut fields);
        let names = names(&fields);
        // `type` first, no key twice, `subagentRunId` where tagged.
        assert_eq!(names.first(), Some(&"type"), "{kind}");
        for (i, n) in names.iter().enumerate() {
            assert!(!names[..i].contains(n), "{kind}.{n}");
        }
        let owner = fields.iter().find(|f| f.name == "subagentRunId");
        assert_eq!(owner.is_some(), kind.tagged(), "{kind}");
        for f in &fields {
            objects_of(&f.shape, &mut objects);
            unions_of(&f.shape, &mut unions);
        }
    }
    for o in &objects {
        let names: Vec<&str> = o.fields().map(|f| f.name).collect();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[..i].contains(n), "{}.{n}", o.name);
        }
    }
    // Every union member has a literal tag, and no two share one.
    for u in &unions {
        let tags: Vec<&str> = u.members.iter().filter_map(|m| m.literal(u.tag)).collect();
        assert_eq!(tags.len(), u.members.len(), "{}", u.name);
        for (i, t) in tags.iter().enumerate() {
            assert!(!tags[..i].contains(t), "{}: {t}", u.name);
            assert!(u.member(t).is_some());
        }
    }
    assert!(event_type("THINKING_START").is_none());
    assert!(event_type("FUTURE").is_none());
}

/// The 1.0 column names only kinds 1.0 has: the current protocol's
/// `null`-tolerant and loose kinds would be mapped to a stricter shape.
#[test]
fn the_core_column_uses_only_kinds_of_1_0() {
    for kind in EventType::ALL.iter().filter(|k| k.is_in(Protocol::V1)) {
        for (field, _, expect) in kind.schema_v1() {
            let current_only = matches!(
                expect,
                Expect::StrOrNull | Expect::Num | Expect::Outcome | Expect::Usage
            );
            assert!(!current_only, "{kind}.{field:?}: {expect:?}");
        }
    }
}

/// The reference's key order, where the validator's issues show it.
#[test]
fn events_keep_the_reference_order() {
    let mut fields = Vec::new();
    let order = [
        (
            EventType::TextMessageChunk,
            &["messageId", "role", "delta", "name"][..],
        ),
        (
            EventType::ToolCallChunk,
            &["toolCallId", "toolCallName", "parentMessageId", "delta"][..],
        ),
        (
            EventType::RunStarted,
            &[
                "threadId",
                "runId",
                "protocolVersion",
                "parentRunId",
                "input",
            ][..],
        ),
        (
            EventType::SubagentStarted,
            &[
                "subagentRunId",
                "name",
                "description",
                "parentSubagentRunId",
                "parentToolCallId",
                "parentMessageId",
            ][..],
        ),
    ];
    for (kind, own) in order {
        event_fields(kind, &mut fields);
        let mut expected = names(BASE);
        if kind != EventType::SubagentStarted {
            expected.push("subagentRunId");
        }
        if kind == EventType::RunStarted {
            expected.pop();
        }
        expected.extend_from_slice(own);
        assert_eq!(names(&fields), expected, "{kind}");
    }
}
