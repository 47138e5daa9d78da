//! The tool schemas of real, public MCP servers, written out here from their
//! documented shapes (each server publishes its tools' `inputSchema`; these
//! are the shapes as the servers' READMEs and sources describe them, with
//! their descriptions shortened), and the arguments models write for them:
//! in prose and fences, with the usual syntax mistakes, in the wrong types,
//! and cut off.

use serde_json::{json, Value};
use serde_llm::{ErrorKind, Report, SchemaDecoder};

fn tool(schema: Value) -> SchemaDecoder {
    SchemaDecoder::new(&schema).unwrap_or_else(|e| panic!("{e}"))
}

fn coercions(report: &Report) -> Vec<String> {
    report
        .coercions
        .iter()
        .map(|c| format!("{} {}", c.path, c.kind))
        .collect()
}

fn repairs(report: &Report) -> Vec<String> {
    report.repairs.iter().map(|r| r.kind.to_string()).collect()
}

/// modelcontextprotocol/servers, `src/filesystem`: `read_text_file` (zod
/// schemas through zod-to-json-schema, draft 7).
fn read_text_file() -> SchemaDecoder {
    tool(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "tail": {"type": "number", "description": "If provided, returns only the last N lines of the file"},
            "head": {"type": "number", "description": "If provided, returns only the first N lines of the file"}
        },
        "required": ["path"],
        "additionalProperties": false
    }))
}

/// The same server's `write_file`.
fn write_file() -> SchemaDecoder {
    tool(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "content": {"type": "string"}
        },
        "required": ["path", "content"],
        "additionalProperties": false
    }))
}

/// The same server's `edit_file`.
fn edit_file() -> SchemaDecoder {
    tool(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "oldText": {"type": "string", "description": "Text to search for - must match exactly"},
                        "newText": {"type": "string", "description": "Text to replace with"}
                    },
                    "required": ["oldText", "newText"],
                    "additionalProperties": false
                }
            },
            "dryRun": {"type": "boolean", "default": false, "description": "Preview changes using git-style diff format"}
        },
        "required": ["path", "edits"],
        "additionalProperties": false
    }))
}

/// modelcontextprotocol/servers (archived), `src/github`: `create_issue`.
fn create_issue() -> SchemaDecoder {
    tool(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "owner": {"type": "string"},
            "repo": {"type": "string"},
            "title": {"type": "string"},
            "body": {"type": "string"},
            "assignees": {"type": "array", "items": {"type": "string"}},
            "milestone": {"type": "number"},
            "labels": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["owner", "repo", "title"],
        "additionalProperties": false
    }))
}

/// modelcontextprotocol/servers, `src/fetch` (Python; pydantic's schema of
/// its `Fetch` model).
fn fetch() -> SchemaDecoder {
    tool(json!({
        "description": "Parameters for fetching a URL.",
        "properties": {
            "url": {"description": "URL to fetch", "format": "uri", "minLength": 1, "title": "Url", "type": "string"},
            "max_length": {
                "default": 5000,
                "description": "Maximum number of characters to return.",
                "exclusiveMaximum": 1000000,
                "exclusiveMinimum": 0,
                "title": "Max Length",
                "type": "integer"
            },
            "start_index": {
                "default": 0,
                "description": "On return output starting at this character index.",
                "minimum": 0,
                "title": "Start Index",
                "type": "integer"
            },
            "raw": {"default": false, "description": "Get the actual HTML content.", "title": "Raw", "type": "boolean"}
        },
        "required": ["url"],
        "title": "Fetch",
        "type": "object"
    }))
}

/// tavily-ai/tavily-mcp: `tavily-search` (enums, bounds, defaults, lists).
fn tavily_search() -> SchemaDecoder {
    tool(json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Search query"},
            "search_depth": {"type": "string", "enum": ["basic", "advanced"], "default": "basic"},
            "topic": {"type": "string", "enum": ["general", "news"], "default": "general"},
            "days": {"type": "number", "default": 3},
            "time_range": {"type": "string", "enum": ["day", "week", "month", "year", "d", "w", "m", "y"]},
            "max_results": {"type": "number", "minimum": 5, "maximum": 20, "default": 10},
            "include_images": {"type": "boolean", "default": false},
            "include_domains": {"type": "array", "items": {"type": "string"}, "default": []},
            "exclude_domains": {"type": "array", "items": {"type": "string"}, "default": []}
        },
        "required": ["query"]
    }))
}

#[test]
fn read_text_file_takes_numbers_written_as_text_and_drops_what_it_does_not_have() {
    let reply = "I'll read the end of the log.\n\n```json\n{\"path\": \"/var/log/app.log\", \"tail\": \"50\", \"encoding\": \"utf-8\"}\n```";
    let (args, report) = read_text_file().decode_with_report(reply).unwrap();
    assert_eq!(args, json!({"path": "/var/log/app.log", "tail": 50}));
    assert_eq!(
        coercions(&report),
        ["$.tail string_to_number", "$.encoding extra_key"]
    );
    assert_eq!(report.coercions[1].offset, reply.find("\"utf-8\"").unwrap());
    // The path is required.
    let e = read_text_file()
        .decode(r#"{"file": "/etc/hosts"}"#)
        .unwrap_err();
    assert_eq!(e.feedback(), "$: missing required field \"path\"");
    // A key in another style is the property's.
    assert_eq!(
        read_text_file()
            .decode(r#"{"Path": "/etc/hosts", "HEAD": 3}"#)
            .unwrap(),
        json!({"path": "/etc/hosts", "head": 3})
    );
}

#[test]
fn write_file_repairs_the_content_and_refuses_a_cut_one() {
    let reply = "{path: 'notes/todo.md', content: 'buy:\n- flour\n- \"strong\" yeast',}";
    let (args, report) = write_file().decode_with_report(reply).unwrap();
    assert_eq!(
        args,
        json!({"path": "notes/todo.md", "content": "buy:\n- flour\n- \"strong\" yeast"})
    );
    assert_eq!(
        repairs(&report),
        [
            "unquoted_key",
            "quotes",
            "unquoted_key",
            "quotes",
            "control_character",
            "control_character",
            "trailing_comma"
        ]
    );
    // Cut off inside the content: writing half a file is worse than not
    // writing it.
    let e = write_file()
        .decode(r#"{"path": "notes/todo.md", "content": "buy:\n- flo"#)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated);
    assert_eq!(e.path(), "$.content");
    // The view shows the path while the content is written.
    assert_eq!(
        write_file()
            .decode_partial(r#"{"path": "notes/todo.md", "content": "buy:\n- flo"#)
            .unwrap(),
        Some(json!({"path": "notes/todo.md"}))
    );
}

#[test]
fn edit_file_takes_one_edit_for_a_list_and_fills_dry_run() {
    let reply = r#"{"path": "src/main.rs", "edits": {"old_text": "foo()", "new_text": "bar()"}, "dry_run": "yes"}"#;
    let (args, report) = edit_file().decode_with_report(reply).unwrap();
    assert_eq!(
        args,
        json!({"path": "src/main.rs", "edits": [{"oldText": "foo()", "newText": "bar()"}], "dryRun": true})
    );
    assert_eq!(
        coercions(&report),
        [
            "$.edits one_to_sequence",
            "$.edits.old_text field_name",
            "$.edits.new_text field_name",
            "$.dry_run field_name",
            "$.dry_run to_bool",
        ]
    );
    // Left out: the default, reported, and not counted as a fix.
    let (args, report) = edit_file()
        .decode_with_report(r#"{"path": "a.txt", "edits": []}"#)
        .unwrap();
    assert_eq!(args, json!({"path": "a.txt", "edits": [], "dryRun": false}));
    assert_eq!(coercions(&report), ["$.dryRun default_value"]);
    assert_eq!(report.fixes(), 0);
    // An edit without its new text.
    let e = edit_file()
        .decode(r#"{"path": "a.txt", "edits": [{"oldText": "x"}]}"#)
        .unwrap_err();
    assert_eq!(
        e.feedback(),
        "$.edits[0]: missing required field \"newText\""
    );
}

#[test]
fn create_issue_takes_lists_written_as_one_value_or_as_text() {
    let reply = r#"Creating the issue now:
{
  "owner": "octo-org",
  "repo": "hello-world",
  "title": "Crash on start",
  "labels": "bug",
  "assignees": "[\"octocat\", \"hubot\"]",
  "milestone": "3"
}"#;
    let (args, report) = create_issue().decode_with_report(reply).unwrap();
    assert_eq!(
        args,
        json!({
            "owner": "octo-org", "repo": "hello-world", "title": "Crash on start",
            "labels": ["bug"], "assignees": ["octocat", "hubot"], "milestone": 3
        })
    );
    assert_eq!(
        coercions(&report),
        [
            "$.labels one_to_sequence",
            "$.assignees json_in_string",
            "$.milestone string_to_number"
        ]
    );
    assert_eq!(report.strategy, serde_llm::Strategy::Balanced);
}

#[test]
fn create_issue_cut_off_in_its_body_keeps_the_rest() {
    // The body is optional: cut off, it is left out (as an `Option` field
    // is), and the report says the reply was cut.
    let reply = r#"{"owner": "octo-org", "repo": "hello-world", "title": "Crash on start", "labels": ["bug", "p1"], "body": "Steps:\n1. Open the ap"#;
    let (args, report) = create_issue().decode_with_report(reply).unwrap();
    assert_eq!(
        args,
        json!({"owner": "octo-org", "repo": "hello-world", "title": "Crash on start", "labels": ["bug", "p1"]})
    );
    assert!(report.truncated);
    // Cut in the labels: the list is cut, so it is left out as well.
    let reply =
        r#"{"owner": "octo-org", "repo": "hello-world", "title": "Crash", "labels": ["bug", "p"#;
    assert_eq!(
        create_issue().decode(reply).unwrap(),
        json!({"owner": "octo-org", "repo": "hello-world", "title": "Crash"})
    );
    // Cut in the title: no issue.
    let e = create_issue()
        .decode(r#"{"owner": "octo-org", "repo": "hello-world", "title": "Cra"#)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated);
}

#[test]
fn fetch_checks_its_bounds_and_fills_its_defaults() {
    let (args, report) = fetch()
        .decode_with_report(
            r#"{"url": "https://example.com", "max_length": 20000.0, "raw": "False"}"#,
        )
        .unwrap();
    assert_eq!(
        args,
        json!({"url": "https://example.com", "max_length": 20000, "start_index": 0, "raw": false})
    );
    assert_eq!(
        coercions(&report),
        [
            "$.start_index default_value",
            "$.max_length float_to_integer",
            "$.raw to_bool"
        ]
    );
    let e = fetch()
        .decode(r#"{"url": "", "max_length": 0, "start_index": -5}"#)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Contract);
    assert_eq!(
        e.feedback(),
        "$.url: expected at least 1 character, got \"\"\n\
         $.max_length: expected a number greater than 0, got 0\n\
         $.start_index: expected a number at least 0, got -5"
    );
}

#[test]
fn tavily_search_matches_enum_values_in_any_style_and_checks_its_range() {
    let reply = r#"{"query": "rust 1.95 release", "topic": "News", "time_range": "Week", "max_results": "8", "include_domains": "blog.rust-lang.org"}"#;
    let (args, report) = tavily_search().decode_with_report(reply).unwrap();
    assert_eq!(
        args,
        json!({
            "query": "rust 1.95 release", "topic": "news", "time_range": "week", "max_results": 8,
            "include_domains": ["blog.rust-lang.org"],
            "search_depth": "basic", "days": 3, "include_images": false, "exclude_domains": []
        })
    );
    assert_eq!(
        coercions(&report),
        [
            "$.days default_value",
            "$.exclude_domains default_value",
            "$.include_images default_value",
            "$.search_depth default_value",
            "$.topic enum_variant",
            "$.time_range enum_variant",
            "$.max_results string_to_number",
            "$.include_domains one_to_sequence",
        ]
    );
    assert_eq!(report.fixes(), 4);
    let e = tavily_search()
        .decode(r#"{"query": "x", "max_results": 50}"#)
        .unwrap_err();
    assert_eq!(
        e.feedback(),
        "$.max_results: expected a number at most 20, got 50"
    );
    let e = tavily_search()
        .decode(r#"{"query": "x", "topic": "sports"}"#)
        .unwrap_err();
    assert_eq!(
        e.feedback(),
        "$.topic: expected one of \"general\", \"news\", got \"sports\""
    );
}

#[test]
fn a_tool_call_streams_into_its_arguments() {
    let reply = r#"{"owner": "octo-org", "repo": "hello-world", "title": "Crash on start", "labels": ["bug"]}"#;
    let d = create_issue();
    let mut s = d.stream();
    let mut seen = Vec::new();
    for chunk in reply.as_bytes().chunks(7) {
        s.push(chunk).unwrap();
        if seen.last() != Some(&s.view().cloned()) {
            seen.push(s.view().cloned());
        }
    }
    assert_eq!(
        seen,
        [
            // The first chunk, `{"owner`, opens the arguments.
            Some(json!({})),
            Some(json!({"owner": "octo-org"})),
            Some(json!({"owner": "octo-org", "repo": "hello-world"})),
            Some(json!({"owner": "octo-org", "repo": "hello-world", "title": "Crash on start"})),
            Some(
                json!({"owner": "octo-org", "repo": "hello-world", "title": "Crash on start", "labels": ["bug"]})
            ),
        ]
    );
    assert_eq!(s.finish().unwrap(), seen.last().cloned().flatten().unwrap());
}
