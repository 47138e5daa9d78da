//! `Decoder::candidates` lists what the decoder tries: the span a decode
//! reports lies in a listed candidate of the same strategy (it is the part
//! of the candidate that was read).

use serde_json::Value;
use serde_llm::{Candidate, Decoder, Strategy};

/// The inputs of the conformance corpora and the example replies.
fn replies() -> Vec<String> {
    let mut all = Vec::new();
    for corpus in [
        include_str!("corpus/json_repair.jsonl"),
        include_str!("corpus/jsonrepair_js.jsonl"),
        include_str!("corpus/partial_json_parser.jsonl"),
    ] {
        for line in corpus.lines() {
            let case: Value = serde_json::from_str(line).expect("a corpus line is JSON");
            if let Some(input) = case["input"].as_str() {
                all.push(input.to_owned());
            }
        }
    }
    for reply in [
        include_str!("../examples/replies/verdict_fenced.txt"),
        include_str!("../examples/replies/verdict_python.txt"),
        include_str!("../examples/replies/verdict_coerced.txt"),
        include_str!("../examples/replies/invoice_truncated.txt"),
        include_str!("../examples/replies/triage_1.txt"),
        include_str!("../examples/replies/triage_2.txt"),
        include_str!("../examples/replies/triage_3.txt"),
        "Here you go:\n```json\n{\"n\": 1,}\n```",
        "{\"a\": 1} Hope this helps!",
        "<think>maybe {\"x\": 0}</think>\nSure: <json>{\"a\": [1, 2]}</json>",
        "Cut off: {\"items\": [{\"id\": 1}, {\"id\": 2",
        "See [2]. Then ```\n[1, 2]\n``` and {\"b\": 'c'}",
    ] {
        all.push(reply.to_owned());
    }
    all
}

#[test]
fn the_decoded_span_comes_from_a_listed_candidate() {
    let decoder = Decoder::new();
    let mut checked = 0;
    for reply in replies() {
        let listed = decoder.candidates(&reply);
        for (i, c) in listed.iter().enumerate() {
            assert!(c.span.end <= reply.len(), "{reply:?}: {c:?}");
            assert!(
                !listed[..i].iter().any(|d| d.span == c.span),
                "{reply:?}: {c:?} twice"
            );
        }
        let Ok((_, report)) = decoder.decode_with_report::<Value>(&reply) else {
            continue;
        };
        if matches!(report.strategy, Strategy::Gathered | Strategy::Prose) {
            continue;
        }
        let from = listed.iter().find(|c| {
            c.strategy == report.strategy
                && c.span.start <= report.span.start
                && report.span.end <= c.span.end
        });
        assert!(
            from.is_some(),
            "{reply:?}: {report:?} is in none of {listed:?}"
        );
        checked += 1;
    }
    assert!(checked > 700, "only {checked} replies checked");
}

#[test]
fn candidates_follow_the_strategies_turned_on() {
    let reply = "Intro {\"a\": 1}\n```json\n[2]\n```\n<json>{\"t\": 3}</json>";
    let strategies =
        |d: Decoder| -> Vec<Strategy> { d.candidates(reply).iter().map(|c| c.strategy).collect() };
    use Strategy::*;
    assert_eq!(strategies(Decoder::new()), [Whole, Fence, Tag, Balanced]);
    assert_eq!(
        strategies(Decoder::new().strategy(Fence, false)),
        [Whole, Tag, Balanced, Balanced]
    );
    assert_eq!(
        strategies(
            Decoder::new()
                .strategy(Whole, false)
                .strategy(Balanced, false)
        ),
        [Fence, Tag]
    );
    // Nothing in an empty reply, nor inside a reasoning block.
    assert_eq!(Decoder::new().candidates(" \n"), Vec::<Candidate>::new());
    let thinking = "<think>{\"draft\": 1}</think> {\"final\": 2}";
    let spans: Vec<&str> = Decoder::new()
        .candidates(thinking)
        .into_iter()
        .map(|c| &thinking[c.span])
        .collect();
    assert_eq!(spans, ["{\"final\": 2}"]);
}

#[test]
fn a_candidate_serializes_as_the_report_does() {
    let c = &Decoder::new().candidates("Here:\n```json\n{\"n\": 1}\n```")[1];
    assert_eq!(
        serde_json::to_string(c).unwrap(),
        r#"{"strategy":"fence","span":{"start":14,"end":22}}"#
    );
}
