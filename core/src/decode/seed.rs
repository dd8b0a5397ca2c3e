//! Owner seeding (SPEC 9.7): the messages of a `MESSAGES_SNAPSHOT` and of
//! `RUN_STARTED.input` enter the 1.0 owner tables, each id with its
//! message's `subagentRunId`.
//!
//! The seeder reads the raw JSON parts of the `messages` and `input`
//! fields as the decoder hands them out, with a tokenizer of its own, and
//! writes what it finds straight into provisional entries of the owner
//! tables (the verifier's [`Owners`](crate::verify::v1::Owners), through
//! [`Seeds`]): no id is buffered here. The entries count only once
//! the frame's event is verified as a `MESSAGES_SNAPSHOT` (overwriting
//! known owners) or a `RUN_STARTED` (keeping them); any other frame's are
//! dropped when the next frame begins.

use crate::json::{Token, Tokenizer};
use crate::spec::Field;
use crate::store::{Fixed, Store};

/// Which seeded string the seeder is reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedText {
    /// A message's `id`.
    Message,
    /// A message's `subagentRunId`.
    Owner,
    /// A tool call's `id`.
    ToolCall,
}

/// Where the seeder writes what it reads: the verifier's 1.0 owner tables
/// ([`Owners`](crate::verify::v1::Owners)) implement it. A trait, so that
/// the decoder names no type of the verifier (the module graph runs from
/// decode to verify, never back).
pub trait Seeds {
    /// A seeded message begins.
    fn seed_message(&mut self);
    /// A seeded tool call begins (its id may follow).
    fn seed_tool_call(&mut self);
    /// A seeded string begins: a provisional entry (or sub-agent name) is
    /// made for its text.
    fn seed_begin(&mut self, which: SeedText);
    /// A fragment of a seeded string.
    fn seed_text(&mut self, which: SeedText, text: &str);
    /// A seeded string ends.
    fn seed_end(&mut self, which: SeedText);
    /// A seeded message ends with `role` (empty if too long to hold).
    fn seed_message_end(&mut self, role: &str);
}

/// Where the seeder is in the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// Not in a seeded value (or past what it seeds).
    Off,
    /// Inside the value, outside any message.
    Around,
    /// Inside a message object (its depth).
    Message,
    /// Inside a tool call of a message.
    ToolCall,
}

/// Which string is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    Nothing,
    Key,
    Seed(SeedText),
    Role,
}

/// The streaming reader of seeded messages. `DEPTH` as the decoder's.
#[derive(Debug, Clone)]
pub struct Seeder<const DEPTH: usize = 32, S: Store = Fixed> {
    json: Tokenizer<DEPTH, S>,
    at: At,
    /// Depth of the messages array (1 for a snapshot, 2 for input).
    list: usize,
    reading: Reading,
    key: heapless::String<16>,
    key_long: bool,
    /// The key of the member whose value comes next, as a [`Reading`].
    next: Reading,
    role: heapless::String<12>,
    role_long: bool,
    /// Inside `input`, in (or just before) the `messages` member's array.
    messages_next: bool,
    /// Inside a message's `toolCalls` array.
    in_tool_calls: bool,
    /// Containers open, counted here (the tokenizer's own count is not
    /// needed at token boundaries).
    depth: usize,
}

impl<const DEPTH: usize, S: Store> Default for Seeder<DEPTH, S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const DEPTH: usize, S: Store> Seeder<DEPTH, S> {
    /// A seeder outside any value.
    pub fn new() -> Self {
        Seeder {
            json: Tokenizer::new(),
            at: At::Off,
            list: 0,
            reading: Reading::Nothing,
            key: heapless::String::new(),
            key_long: false,
            next: Reading::Nothing,
            role: heapless::String::new(),
            role_long: false,
            messages_next: false,
            in_tool_calls: false,
            depth: 0,
        }
    }

    /// The bytes the reader keeps beside its own size (0 in the fixed
    /// store).
    pub fn heap_bytes(&self) -> usize {
        self.json.heap_bytes()
    }

    /// A value of `field` begins: `messages` (a snapshot's list) or
    /// `input` (a run input holding one); other fields are not read.
    pub fn begin(&mut self, field: Field) {
        *self = Self::new();
        self.list = if field == Field::Messages {
            1
        } else if field == Field::Input {
            2
        } else {
            return;
        };
        self.at = At::Around;
    }

    /// A raw fragment of the value; ids go into `owners`' provisional
    /// entries.
    pub fn feed(&mut self, mut text: &[u8], owners: &mut impl Seeds) {
        while self.at != At::Off && !text.is_empty() {
            let Ok((used, token)) = self.json.next(text) else {
                // Malformed JSON: the decoder fails the frame, and its
                // provisional entries go with it.
                self.at = At::Off;
                return;
            };
            text = text.get(used..).unwrap_or_default();
            if let Some(token) = token {
                self.token(&token, owners);
            }
        }
    }

    fn token(&mut self, token: &Token<'_>, owners: &mut impl Seeds) {
        let depth = self.depth;
        match token {
            Token::KeyStart => {
                self.reading = Reading::Key;
                self.key.clear();
                self.key_long = false;
            }
            Token::KeyEnd => {
                self.reading = Reading::Nothing;
                self.next = self.member(depth);
            }
            Token::StrStart => {
                self.reading = self.next;
                if let Reading::Seed(which) = self.next {
                    owners.seed_begin(which);
                }
                if self.next == Reading::Role {
                    self.role.clear();
                    self.role_long = false;
                }
            }
            Token::Text(t) => self.text(t, owners),
            Token::Char(c) => self.text(c.encode_utf8(&mut [0u8; 4]), owners),
            Token::StrEnd => {
                if let Reading::Seed(which) = self.reading {
                    owners.seed_end(which);
                }
                self.reading = Reading::Nothing;
                self.next = Reading::Nothing;
            }
            Token::ObjectStart => {
                self.depth = depth.saturating_add(1);
                self.open_object(self.depth, owners);
            }
            Token::ArrayStart => {
                self.depth = depth.saturating_add(1);
                let message = self.list.saturating_add(1);
                if self.at == At::Message && self.depth == message.saturating_add(1) {
                    self.in_tool_calls = self.key == "toolCalls";
                }
                self.next = Reading::Nothing;
            }
            Token::ObjectEnd => {
                self.close_object(depth, owners);
                self.depth = depth.saturating_sub(1);
            }
            Token::ArrayEnd => {
                let message = self.list.saturating_add(1);
                if depth == message.saturating_add(1) {
                    self.in_tool_calls = false;
                }
                if depth == self.list {
                    // The messages array ends: nothing more to seed.
                    self.messages_next = false;
                    if self.list == 1 {
                        self.at = At::Off;
                    }
                }
                self.depth = depth.saturating_sub(1);
            }
            Token::Number(_) | Token::NumberEnd | Token::True | Token::False | Token::Null => {
                self.next = Reading::Nothing;
            }
        }
    }

    fn text(&mut self, t: &str, owners: &mut impl Seeds) {
        match self.reading {
            Reading::Key => {
                if self.key.push_str(t).is_err() {
                    self.key_long = true;
                }
            }
            Reading::Seed(which) => owners.seed_text(which, t),
            Reading::Role => {
                if self.role.push_str(t).is_err() {
                    self.role_long = true;
                }
            }
            Reading::Nothing => {}
        }
    }

    /// What the value of the key just read is, at `depth`.
    fn member(&mut self, depth: usize) -> Reading {
        if self.key_long {
            return Reading::Nothing;
        }
        let key = self.key.as_str();
        let message = self.list.saturating_add(1);
        match self.at {
            At::Around if self.list == 2 && depth == 1 && key == "messages" => {
                self.messages_next = true;
                Reading::Nothing
            }
            At::Message if depth == message => match key {
                "id" => Reading::Seed(SeedText::Message),
                "subagentRunId" => Reading::Seed(SeedText::Owner),
                "role" => Reading::Role,
                _other => Reading::Nothing,
            },
            At::ToolCall if depth == message.saturating_add(2) && key == "id" => {
                Reading::Seed(SeedText::ToolCall)
            }
            At::Off | At::Around | At::Message | At::ToolCall => Reading::Nothing,
        }
    }

    fn open_object(&mut self, depth: usize, owners: &mut impl Seeds) {
        let message = self.list.saturating_add(1);
        let in_list = self.list == 1 || self.messages_next;
        match self.at {
            At::Around if depth == message && in_list => {
                self.at = At::Message;
                owners.seed_message();
            }
            At::Message if depth == message.saturating_add(2) && self.in_tool_calls => {
                self.at = At::ToolCall;
                owners.seed_tool_call();
            }
            At::Off | At::Around | At::Message | At::ToolCall => {}
        }
        self.next = Reading::Nothing;
    }

    fn close_object(&mut self, depth: usize, owners: &mut impl Seeds) {
        let message = self.list.saturating_add(1);
        match self.at {
            At::ToolCall if depth == message.saturating_add(2) => self.at = At::Message,
            At::Message if depth == message => {
                let role = if self.role_long {
                    ""
                } else {
                    self.role.as_str()
                };
                owners.seed_message_end(role);
                self.at = At::Around;
            }
            At::Around if self.list == 2 && depth == 1 => self.at = At::Off,
            At::Off | At::Around | At::Message | At::ToolCall => {}
        }
    }
}
