//! `--device-capacity PRESET|FILE`: the device's fixed tables, and whether
//! a frame the gateway accepted would fit them (docs/SPEC.md, "Device
//! line protocol").
//!
//! The device links the no-heap core with const capacities (`Pipeline<ID,
//! MSGS, TOOLS, STEPS, DEPTH>`); the gateway's own client is larger. The
//! check does not verify anything a second time: the open items come from
//! the relay's shadow client after the frame, and only the two things the
//! client cannot say are measured on the frame's text, with the core's own
//! tokenizer: how deep it nests and how long its id and name are.

use std::fmt;

use agui_alloc::client::OpenItems;
use agui_core::json::{JsonErrorKind, Token, Tokenizer};
use agui_core::EventType;

/// What a device holds: the const parameters of its pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceCapacity {
    /// `MSGS`: open text messages.
    pub msgs: usize,
    /// `TOOLS`: open tool calls.
    pub tools: usize,
    /// `STEPS`: open steps.
    pub steps: usize,
    /// `ID`: bytes of an id or a tool name (a `heapless::String<ID>`: an
    /// id of exactly `ID` bytes fits).
    pub id: usize,
    /// `DEPTH`: nested arrays and objects, the frame's own object counted.
    pub depth: usize,
}

/// The core tokenizer's deepest nesting (its bit stack is a `u64`): no
/// device can hold more, so the gateway's scan stops there too.
const MAX_DEPTH: usize = 64;

/// The bundled firmware images (examples/firmware), one row each: the
/// name, the capacities, where they come from.
const PRESETS: &[(&str, DeviceCapacity, &str)] = &[
    (
        "agent",
        DeviceCapacity {
            msgs: 8,
            tools: 8,
            steps: 8,
            id: 64,
            depth: 32,
        },
        "the agent firmware (DefaultPipeline)",
    ),
    (
        "serial",
        DeviceCapacity {
            msgs: 4,
            tools: 4,
            steps: 4,
            id: 64,
            depth: 32,
        },
        "the serial verdict firmware (Pipeline<64, 4, 4, 4, 32>)",
    ),
    (
        "kiosk",
        DeviceCapacity {
            msgs: agui_alloc::client::OPEN_MESSAGES,
            tools: agui_alloc::client::OPEN_TOOL_CALLS,
            steps: agui_alloc::client::OPEN_STEPS,
            id: agui_alloc::client::ID_CAPACITY,
            depth: agui_alloc::client::DEPTH,
        },
        "the kiosk firmware (the alloc layer's Client)",
    ),
];

/// The keys of a capacity file, in the order the usage text names them.
const KEYS: [&str; 5] = ["msgs", "tools", "steps", "id", "depth"];

impl DeviceCapacity {
    /// `PRESET` (a row of [`PRESETS`]) or the path of a capacity file.
    ///
    /// # Errors
    /// One line for the user: no such preset and no readable file, or
    /// what is wrong in the file.
    pub fn from_arg(arg: &str) -> Result<Self, String> {
        if let Some((_, cap, _)) = PRESETS.iter().find(|(name, _, _)| *name == arg) {
            return Ok(*cap);
        }
        let names: Vec<&str> = PRESETS.iter().map(|(name, _, _)| *name).collect();
        let text = std::fs::read_to_string(arg).map_err(|e| {
            format!(
                "--device-capacity {arg}: not a preset ({}) and not a readable file: {e}",
                names.join(", ")
            )
        })?;
        Self::parse(&text).map_err(|e| format!("--device-capacity {arg}: {e}"))
    }

    /// A capacity file: `key = value` lines (`msgs`, `tools`, `steps`,
    /// `id`, `depth`, each exactly once, positive decimal integers; `depth`
    /// at most 64), blank lines and `#` comments.
    ///
    /// # Errors
    /// The first bad line, by number.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut values: [Option<usize>; 5] = [None; 5];
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = n + 1;
            let Some((key, value)) = line.split_once('=') else {
                return Err(format!("line {at}: expected `key = value`, got '{line}'"));
            };
            let key = key.trim();
            let Some(slot) = KEYS.iter().position(|k| *k == key) else {
                return Err(format!(
                    "line {at}: unknown key '{key}' (expected {})",
                    KEYS.join(", ")
                ));
            };
            let value = value.trim();
            let number = value
                .parse::<usize>()
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(|| {
                    format!("line {at}: {key} = '{value}': expected a positive integer")
                })?;
            if key == "depth" && number > MAX_DEPTH {
                return Err(format!(
                    "line {at}: depth = {number}: the core's tokenizer holds at most {MAX_DEPTH}"
                ));
            }
            match values.get_mut(slot) {
                Some(Some(_)) => return Err(format!("line {at}: {key} given twice")),
                Some(v) => *v = Some(number),
                None => {}
            }
        }
        let missing: Vec<&str> = KEYS
            .iter()
            .zip(values)
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| *k)
            .collect();
        match values {
            [Some(msgs), Some(tools), Some(steps), Some(id), Some(depth)] => Ok(DeviceCapacity {
                msgs,
                tools,
                steps,
                id,
                depth,
            }),
            _ => Err(format!("missing {}", missing.join(", "))),
        }
    }

    /// Whether the device would take `frame` (the JSON text of a frame the
    /// shadow client accepted), the shadow client holding `open` items
    /// open after it. A frame opens at most one item and a chunk's close
    /// of the previous item comes first in it, so the counts after the
    /// frame are the most the device holds during it.
    ///
    /// # Errors
    /// The first of the device's limits the frame goes past, in the order
    /// the device meets them: nesting, ids, open items.
    pub fn check(&self, frame: &[u8], open: OpenItems) -> Result<(), OverDevice> {
        let shape = Shape::of(frame);
        if shape.depth > self.depth {
            return Err(OverDevice::Depth {
                depth: shape.depth,
                limit: self.depth,
            });
        }
        if let Some(kind) = shape.kind() {
            for field in [kind.id_field(), kind.name_field()].into_iter().flatten() {
                let name = field.as_str();
                match shape.string_len(name) {
                    Some(len) if len > self.id => {
                        return Err(OverDevice::Id {
                            field: name,
                            len,
                            limit: self.id,
                        })
                    }
                    Some(_) | None => {}
                }
            }
        }
        let tables = [
            ("text messages", "msgs", open.messages, self.msgs),
            ("tool calls", "tools", open.tool_calls, self.tools),
            ("steps", "steps", open.steps, self.steps),
        ];
        for (what, key, open, limit) in tables {
            if open > limit {
                return Err(OverDevice::Open {
                    what,
                    key,
                    open,
                    limit,
                });
            }
        }
        Ok(())
    }
}

impl fmt::Display for DeviceCapacity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "msgs {}, tools {}, steps {}, id {} bytes, depth {}",
            self.msgs, self.tools, self.steps, self.id, self.depth
        )
    }
}

/// A device limit that a frame goes past.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OverDevice {
    /// The frame nests deeper than the device's tokenizer (`depth` is the
    /// scan's limit, 65, when it nests deeper than any device can).
    Depth {
        /// The frame's nesting.
        depth: usize,
        /// The device's `DEPTH`.
        limit: usize,
    },
    /// An id or name the device's rules read is longer than its id slots.
    Id {
        /// The field's wire name.
        field: &'static str,
        /// Its decoded length in bytes.
        len: usize,
        /// The device's `ID`.
        limit: usize,
    },
    /// More items open than the device's table holds.
    Open {
        /// What the table holds, for people.
        what: &'static str,
        /// The capacity's key (`msgs`, `tools`, `steps`).
        key: &'static str,
        /// How many are open after the frame.
        open: usize,
        /// The device's capacity.
        limit: usize,
    },
}

impl fmt::Display for OverDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OverDevice::Depth { depth, limit } if *depth > MAX_DEPTH => write!(
                f,
                "JSON nested more than {MAX_DEPTH} deep; the device holds {limit} (depth)"
            ),
            OverDevice::Depth { depth, limit } => write!(
                f,
                "JSON nested {depth} deep; the device holds {limit} (depth)"
            ),
            OverDevice::Id { field, len, limit } => write!(
                f,
                "{field} of {len} bytes; the device holds ids of {limit} bytes (id)"
            ),
            OverDevice::Open {
                what,
                key,
                open,
                limit,
            } => write!(f, "{open} {what} open; the device holds {limit} ({key})"),
        }
    }
}

/// What the device's decoder reads of a frame besides the rules: its
/// deepest nesting, and its top-level string members' decoded lengths.
#[derive(Debug, Default)]
struct Shape {
    depth: usize,
    /// The `type` member's text.
    kind: String,
    /// Top-level string members: name, decoded length in bytes.
    strings: Vec<(String, usize)>,
}

/// Keys longer than this name no field; their values are not measured.
const KEY_LEN: usize = 32;

impl Shape {
    /// Scans `frame` with the core's tokenizer. Nesting past
    /// [`MAX_DEPTH`] ends the scan with `depth` one more than it.
    fn of(frame: &[u8]) -> Shape {
        let mut shape = Shape::default();
        let mut json = Tokenizer::<MAX_DEPTH>::new();
        let mut rest = frame;
        // The top-level key being read, and the string member being read.
        let mut key: Option<String> = None;
        let mut member: Option<(String, usize)> = None;
        let mut last_key = String::new();
        while !rest.is_empty() {
            let (used, token) = match json.next(rest) {
                Ok(step) => step,
                Err(e) => {
                    if e.kind == JsonErrorKind::TooDeep {
                        shape.depth = MAX_DEPTH + 1;
                    }
                    break;
                }
            };
            rest = rest.get(used..).unwrap_or_default();
            let Some(token) = token else { continue };
            let top = json.depth() == 1;
            match token {
                Token::ObjectStart | Token::ArrayStart => {
                    shape.depth = shape.depth.max(json.depth());
                }
                Token::KeyStart if top => key = Some(String::new()),
                Token::KeyEnd => last_key = key.take().unwrap_or_default(),
                Token::StrStart if top => member = Some((std::mem::take(&mut last_key), 0)),
                Token::StrEnd => {
                    if let Some(done) = member.take() {
                        shape.strings.push(done);
                    }
                }
                Token::Text(text) => shape.add(&mut key, &mut member, text),
                Token::Char(c) => shape.add(&mut key, &mut member, c.encode_utf8(&mut [0; 4])),
                Token::ObjectEnd
                | Token::ArrayEnd
                | Token::KeyStart
                | Token::StrStart
                | Token::Number(_)
                | Token::NumberEnd
                | Token::True
                | Token::False
                | Token::Null => {}
            }
        }
        shape
    }

    /// A piece of the key or string member being read.
    fn add(&mut self, key: &mut Option<String>, member: &mut Option<(String, usize)>, text: &str) {
        if let Some(key) = key {
            if key.len() <= KEY_LEN {
                key.push_str(text);
            }
        }
        if let Some((name, len)) = member {
            *len += text.len();
            if name == "type" && self.kind.len() <= KEY_LEN {
                self.kind.push_str(text);
            }
        }
    }

    /// The frame's event type, if its `type` names one.
    fn kind(&self) -> Option<EventType> {
        EventType::from_wire(&self.kind)
    }

    /// The decoded length of top-level string member `name` (the last one,
    /// as the decoder keeps it).
    fn string_len(&self, name: &str) -> Option<usize> {
        self.strings
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, len)| *len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AGENT: DeviceCapacity = DeviceCapacity {
        msgs: 8,
        tools: 8,
        steps: 8,
        id: 64,
        depth: 32,
    };

    fn check(frame: &str, open: OpenItems) -> Result<(), OverDevice> {
        AGENT.check(frame.as_bytes(), open)
    }

    fn none() -> OpenItems {
        OpenItems::default()
    }

    /// `depth` nested arrays inside the frame's object: `depth + 1` levels.
    fn nested(depth: usize) -> String {
        format!(
            r#"{{"type":"STATE_SNAPSHOT","snapshot":{{"a":{}1{}}}}}"#,
            "[".repeat(depth - 2),
            "]".repeat(depth - 2)
        )
    }

    #[test]
    fn depth_counts_the_frame_object_and_stops_at_the_limit() {
        assert_eq!(Shape::of(nested(32).as_bytes()).depth, 32);
        assert_eq!(check(&nested(32), none()), Ok(()));
        assert_eq!(
            check(&nested(33), none()),
            Err(OverDevice::Depth {
                depth: 33,
                limit: 32
            })
        );
        // Deeper than any core tokenizer: the scan's own limit.
        let err = check(&nested(200), none()).unwrap_err();
        assert_eq!(
            err,
            OverDevice::Depth {
                depth: 65,
                limit: 32
            }
        );
        assert_eq!(
            err.to_string(),
            "JSON nested more than 64 deep; the device holds 32 (depth)"
        );
        // Brackets inside strings do not nest.
        let text = format!(
            r#"{{"type":"CUSTOM","name":"x","value":"{}"}}"#,
            "[".repeat(99)
        );
        assert_eq!(check(&text, none()), Ok(()));
    }

    #[test]
    fn ids_are_measured_decoded_in_the_fields_the_type_reads() {
        let start = |id: &str| format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{id}"}}"#);
        assert_eq!(check(&start(&"m".repeat(64)), none()), Ok(()));
        let err = check(&start(&"m".repeat(65)), none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "messageId of 65 bytes; the device holds ids of 64 bytes (id)"
        );
        // An escape is one character: 63 letters and `\u00e9` (2 bytes) are 65.
        let escaped = format!("{}\\u00e9", "m".repeat(63));
        assert_eq!(
            check(&start(&escaped), none()),
            Err(OverDevice::Id {
                field: "messageId",
                len: 65,
                limit: 64
            })
        );
        // A tool call's name is held like an id.
        let call = format!(
            r#"{{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"{}"}}"#,
            "n".repeat(100)
        );
        assert!(matches!(
            check(&call, none()),
            Err(OverDevice::Id {
                field: "toolCallName",
                len: 100,
                ..
            })
        ));
        // A chunk's id too.
        let chunk = format!(
            r#"{{"type":"TEXT_MESSAGE_CHUNK","messageId":"{}","delta":"x"}}"#,
            "m".repeat(100)
        );
        assert!(check(&chunk, none()).is_err());
        // A field the type's rules do not read is not an id slot, and a
        // nested member of the same name is not the frame's.
        let other = format!(
            r#"{{"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"c","content":"{0}","x":{{"messageId":"{0}"}}}}"#,
            "y".repeat(100)
        );
        assert_eq!(check(&other, none()), Ok(()));
    }

    #[test]
    fn open_items_after_the_frame_against_the_tables() {
        let frame = r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#;
        let open = |messages, tool_calls, steps| OpenItems {
            messages,
            tool_calls,
            steps,
        };
        assert_eq!(check(frame, open(8, 8, 8)), Ok(()));
        assert_eq!(
            check(frame, open(9, 0, 0)).unwrap_err().to_string(),
            "9 text messages open; the device holds 8 (msgs)"
        );
        assert!(matches!(
            check(frame, open(0, 9, 0)),
            Err(OverDevice::Open { key: "tools", .. })
        ));
        assert!(matches!(
            check(frame, open(0, 0, 9)),
            Err(OverDevice::Open { key: "steps", .. })
        ));
    }

    /// Frames for the agreement test: a small pool of ids (so that more
    /// than 8 are open at times), ids and names at and past 64 bytes (one
    /// with an escape), nesting around 32, chunks that close each other.
    fn frame(pick: u64) -> String {
        let long = [
            "k".repeat(64),
            "k".repeat(65),
            format!("{}\\u00e9", "k".repeat(62)),
            format!("{}\\u00e9", "k".repeat(63)),
        ];
        // Mostly 20 short ids, now and then a long one.
        let which = (pick / 16) as usize % 48;
        let id = match long.get(which.saturating_sub(44)) {
            Some(id) if which >= 44 => id.clone(),
            _ => char::from(b'a' + (which % 20) as u8).to_string(),
        };
        let depth = 29 + (pick / 1024) as usize % 6;
        match pick % 16 {
            0..=3 => format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{id}"}}"#),
            4 => format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"{id}"}}"#),
            5 => format!(r#"{{"type":"TEXT_MESSAGE_CHUNK","messageId":"{id}","delta":"x"}}"#),
            6 | 7 => {
                format!(r#"{{"type":"TOOL_CALL_START","toolCallId":"{id}","toolCallName":"{id}"}}"#)
            }
            8 => format!(r#"{{"type":"TOOL_CALL_END","toolCallId":"{id}"}}"#),
            9 => format!(r#"{{"type":"TOOL_CALL_CHUNK","toolCallId":"{id}","toolCallName":"t"}}"#),
            10 | 11 => format!(r#"{{"type":"STEP_STARTED","stepName":"{id}"}}"#),
            12 => format!(r#"{{"type":"STEP_FINISHED","stepName":"{id}"}}"#),
            13 => nested(depth),
            14 => format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":"y"}}"#),
            _ => r#"{"type":"CUSTOM","name":"n","value":[[["]]]"]]]}"#.to_owned(),
        }
    }

    /// The check agrees with the core's own pipeline of the same
    /// capacities, the device's (the `agent` and `serial` presets are
    /// `DefaultPipeline` and `Pipeline<64, 4, 4, 4, 32>`): for every frame
    /// the gateway's client accepts, the check passes exactly when that
    /// pipeline takes the frame.
    #[test]
    fn the_check_agrees_with_the_devices_pipeline() {
        /// Frames taken, and frames held back by depth, id and open items.
        fn run<const M: usize, const T: usize, const S: usize>(cap: DeviceCapacity) -> [u32; 4] {
            let mut seed = 0x2545_f491_4f6c_dd1d_u64;
            let mut next = move || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            let mut verdicts = [0u32; 4];
            for _ in 0..1_500 {
                // Keep-going on both sides: a frame that breaks a rule is
                // skipped by both (frames are atomic), so that streams
                // get far enough to fill the tables.
                let mut client = agui_alloc::Client::new().keep_going();
                let mut device = agui_core::Pipeline::<64, M, T, S, 32>::new();
                device.set_mode(agui_core::Mode::KeepGoing);
                let start = "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n";
                client.feed(start.as_bytes()).unwrap();
                device.feed(start.as_bytes(), |_| {}).unwrap();
                for _ in 0..80 {
                    let line = format!("{}\n", frame(next()));
                    let errors = client.error_count();
                    client.feed(line.as_bytes()).unwrap();
                    let mut taken = true;
                    device
                        .feed(line.as_bytes(), |out| {
                            taken &= !matches!(out, agui_core::Output::Error(_));
                        })
                        .unwrap();
                    if client.error_count() != errors {
                        // The device's rules are the client's.
                        assert!(!taken, "{line}");
                        continue;
                    }
                    let held = cap.check(line.as_bytes(), client.open_items());
                    assert_eq!(held.is_ok(), taken, "{line}: {held:?}");
                    let Err(over) = held else {
                        verdicts[0] += 1;
                        continue;
                    };
                    // The gateway ends the run here.
                    match over {
                        OverDevice::Depth { .. } => verdicts[1] += 1,
                        OverDevice::Id { .. } => verdicts[2] += 1,
                        OverDevice::Open { .. } => verdicts[3] += 1,
                    }
                    break;
                }
            }
            verdicts
        }
        let agent = run::<8, 8, 8>(AGENT);
        let serial = run::<4, 4, 4>(DeviceCapacity::from_arg("serial").unwrap());
        // Both sides of each boundary were met, many times.
        for verdicts in [agent, serial] {
            assert!(verdicts.iter().all(|&n| n > 100), "{verdicts:?}");
        }
    }

    #[test]
    fn presets_and_files() {
        assert_eq!(DeviceCapacity::from_arg("agent"), Ok(AGENT));
        assert_eq!(DeviceCapacity::from_arg("serial").unwrap().msgs, 4);
        assert_eq!(
            DeviceCapacity::parse(
                "# a board\nmsgs = 2\n tools=3\n\nsteps = 4\nid = 16\ndepth = 8\n"
            ),
            Ok(DeviceCapacity {
                msgs: 2,
                tools: 3,
                steps: 4,
                id: 16,
                depth: 8
            })
        );
        let bad = |text: &str| DeviceCapacity::parse(text).unwrap_err();
        let all = "msgs = 1\ntools = 1\nsteps = 1\nid = 1\n";
        assert_eq!(bad(all), "missing depth");
        assert_eq!(
            bad(&format!("{all}depth = 1\nheight = 3\n")),
            "line 6: unknown key 'height' (expected msgs, tools, steps, id, depth)"
        );
        assert_eq!(
            bad(&format!("{all}depth = 0\n")),
            "line 5: depth = '0': expected a positive integer"
        );
        assert_eq!(
            bad(&format!("{all}depth = -3\n")),
            "line 5: depth = '-3': expected a positive integer"
        );
        assert_eq!(
            bad(&format!("{all}depth = 65\n")),
            "line 5: depth = 65: the core's tokenizer holds at most 64"
        );
        assert_eq!(bad("msgs = 1\nmsgs = 2\n"), "line 2: msgs given twice");
        assert_eq!(
            bad("msgs 1\n"),
            "line 1: expected `key = value`, got 'msgs 1'"
        );
        let err = DeviceCapacity::from_arg("/nonexistent/agui-cap").unwrap_err();
        assert!(
            err.starts_with(
                "--device-capacity /nonexistent/agui-cap: not a preset (agent, serial, kiosk) and not a readable file: "
            ),
            "{err}"
        );
        assert!(!err.contains('\n'));
    }
}
