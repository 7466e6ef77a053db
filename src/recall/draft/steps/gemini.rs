//! Gemini CLI's tool calls: a `gemini` message's `toolCalls`, each with its `status`, read
//! typed (a call's result, most of a line's bytes, is searched where it stands, never copied)
//! or, for a shape the typed read does not take, as a whole value. A message may be logged
//! again as it is updated (`{"$set":{"messages":[…]}}` rewrites them all): a call id's last
//! step is the one kept, at the line it was first seen.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;
use serde_json::value::RawValue;

use super::{Exit, Input, Step, code_in, is_checkpoint, ran, str_at};

/// A line: a message, or a `$set` of them all.
#[derive(serde::Deserialize)]
struct Line<'a> {
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Vec<Call<'a>>,
    #[serde(rename = "$set", borrow, default)]
    set: Option<Set<'a>>,
}

#[derive(serde::Deserialize)]
struct Set<'a> {
    #[serde(borrow, default)]
    messages: Vec<Message<'a>>,
}

#[derive(serde::Deserialize)]
struct Message<'a> {
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Vec<Call<'a>>,
}

/// One tool call, as a draft reads it.
#[derive(serde::Deserialize)]
struct Call<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    args: Option<Input<'a>>,
    /// The result as the line has it: only searched for an exit code.
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
}

/// Read `line` typed; false when its shape is not one the typed read takes.
pub(super) fn typed(
    line: &str,
    n: u64,
    logged: &mut HashMap<String, usize>,
    out: &mut Vec<(u64, Step)>,
) -> bool {
    let Ok(l) = serde_json::from_str::<Line>(line) else {
        return false;
    };
    let calls = match l.set {
        Some(set) => set
            .messages
            .into_iter()
            .flat_map(|m| m.tool_calls)
            .collect(),
        None => l.tool_calls,
    };
    for c in calls {
        let args = c.args.unwrap_or_default();
        let step = step(
            c.name.as_deref().unwrap_or_default(),
            c.status.as_deref().unwrap_or_default(),
            &args,
            c.result.map_or("", RawValue::get),
        );
        keep(step, c.id.as_deref().unwrap_or_default(), n, logged, out);
    }
    true
}

/// Read a line's whole value.
pub(super) fn whole(
    v: &Value,
    n: u64,
    logged: &mut HashMap<String, usize>,
    out: &mut Vec<(u64, Step)>,
) {
    let messages: Vec<&Value> = match v.pointer("/$set/messages").and_then(Value::as_array) {
        Some(all) => all.iter().collect(),
        None => vec![v],
    };
    for m in messages {
        let Some(tools) = m.get("toolCalls").and_then(Value::as_array) else {
            continue;
        };
        for t in tools {
            let s = |at: &str| str_at(t, at).map(Cow::Borrowed);
            let args = Input {
                file_path: s("/args/file_path"),
                path: s("/args/path"),
                command: s("/args/command"),
                ..Input::default()
            };
            let output = t.get("result").map(Value::to_string).unwrap_or_default();
            let step = step(
                str_at(t, "/name").unwrap_or_default(),
                str_at(t, "/status").unwrap_or_default(),
                &args,
                &output,
            );
            keep(step, str_at(t, "/id").unwrap_or_default(), n, logged, out);
        }
    }
}

/// A call's step, put where the same call id's was, else after the others.
fn keep(
    step: Option<Step>,
    id: &str,
    n: u64,
    logged: &mut HashMap<String, usize>,
    out: &mut Vec<(u64, Step)>,
) {
    let Some(step) = step else {
        return;
    };
    match logged.get(id) {
        Some(&at) if !id.is_empty() => out[at].1 = step,
        _ => {
            logged.insert(id.to_string(), out.len());
            out.push((n, step));
        }
    }
}

/// The step of one tool call, when it is one; `output` is its result's JSON text.
fn step(name: &str, status: &str, args: &Input, output: &str) -> Option<Step> {
    match name {
        "replace" | "write_file" | "edit" => {
            let path = args.file_path.as_deref().or(args.path.as_deref())?;
            Some(Step::Edited(path.to_string()))
        }
        "run_shell_command" => {
            let command = args.command.as_deref()?;
            let exit = match (code_in(output), status) {
                (Some(code), _) => Exit::Code(code),
                (None, "success") => Exit::Done,
                (None, "error") => Exit::Failed,
                _ => Exit::Unknown,
            };
            Some(ran(command.to_string(), exit))
        }
        _ if is_checkpoint(name, None) && status == "success" => Some(Step::Recorded),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Steps = Vec<(u64, Step)>;

    /// The steps of `line` read typed, and read as a whole value.
    fn both(line: &str) -> (Steps, Steps) {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        assert!(typed(line, 7, &mut HashMap::new(), &mut a));
        let v: Value = serde_json::from_str(line).unwrap();
        whole(&v, 7, &mut HashMap::new(), &mut b);
        (a, b)
    }

    #[test]
    fn the_typed_read_and_the_whole_value_give_the_same_steps() {
        let line = r#"{"id":"g1","type":"gemini","content":"ok","toolCalls":[
            {"id":"a","name":"write_file","args":{"file_path":"src/a.rs"},"status":"success"},
            {"id":"b","name":"run_shell_command","args":{"command":"cargo test"},"status":"success",
             "result":[{"functionResponse":{"response":{"output":"Exit Code: 101\nfailed"}}}]},
            {"id":"c","name":"run_shell_command","args":{"command":"ls"},"status":"error"},
            {"id":"d","name":"mcp_trilogy_memory_checkpoint","args":{},"status":"success"},
            {"id":"e","name":"read_file","args":{"path":"x"},"status":"success"}]}"#
            .replace('\n', "");
        let (typed, whole) = both(&line);
        assert_eq!(typed, whole);
        assert_eq!(
            typed,
            vec![
                (7, Step::Edited("src/a.rs".into())),
                (
                    7,
                    Step::Ran {
                        command: "cargo test".into(),
                        exit: Exit::Code(101)
                    }
                ),
                (
                    7,
                    Step::Ran {
                        command: "ls".into(),
                        exit: Exit::Failed
                    }
                ),
                (7, Step::Recorded),
            ]
        );
    }

    #[test]
    fn a_set_of_messages_is_read_and_a_call_seen_again_keeps_its_last_step() {
        let line = r#"{"$set":{"messages":[{"toolCalls":[
            {"id":"b","name":"run_shell_command","args":{"command":"make"}}]},
            {"toolCalls":[{"id":"b","name":"run_shell_command","args":{"command":"make"},"status":"success"}]}]}}"#
            .replace('\n', "");
        let (typed, whole) = both(&line);
        assert_eq!(typed, whole);
        assert_eq!(
            typed,
            vec![(
                7,
                Step::Ran {
                    command: "make".into(),
                    exit: Exit::Done
                }
            )]
        );
    }

    #[test]
    fn a_shape_the_typed_read_does_not_take_is_left_to_the_whole_value() {
        let line = r#"{"toolCalls":[{"id":7,"name":"write_file","args":{"file_path":"a"}}]}"#;
        assert!(!typed(line, 1, &mut HashMap::new(), &mut Vec::new()));
    }
}
