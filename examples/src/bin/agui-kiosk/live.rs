//! `agui-kiosk --url URL`: the live conversation in a window.
//!
//! The first user message (`--message`) starts a run over HTTP
//! (`agui_alloc::http::HttpAgent`, a `Conversation`); every event is folded
//! into a mirror of the conversation as it arrives, and the kiosk renderer
//! brings the panel up to date and shows it in the window before the next
//! event is read. Frontend tools (`--tool NAME=COMMAND`, as in agui-chat)
//! are answered and the next run starts, until the agent answers without
//! calling one. The window then keeps showing the conversation until it is
//! closed or Escape is pressed.
//!
//! A run that ends with interrupts (an agent asking a person, e.g. to
//! approve a tool call) shows each question in the kiosk's prompt panel:
//! Y or N (or a click on the row of answers) approves or denies it, then
//! the resuming run starts with the answers. A question that has expired,
//! that wants more than an approval (a JSON payload the window cannot
//! type), or that is left by closing the window (or Escape) is answered
//! `cancelled`.

use std::cell::Cell;
use std::io::Write;
use std::rc::Rc;
use std::thread;
use std::time::Duration;

use agui_alloc::client::Limits;
use agui_alloc::conversation::{expiry_ms, is_expired, Conversation, PendingToolCall, Resolution};
use agui_alloc::event::Event;
use agui_alloc::hooks::{Flow, HookView, Subscriber};
use agui_alloc::http::{Encoding, HttpAgent, RunObserver};
use agui_alloc::model::{Message, Tool};
use agui_alloc::reduce::Reducer;
use agui_examples::headers::HttpHeader;
use agui_examples::interrupts::{describe, describe_answer, now_ms, wants_payload};
use agui_examples::tool_command::run_tool;
use agui_examples::transcript::Peer;
use agui_kiosk::framebuffer::Framebuffer;
use agui_kiosk::{Choice, Config, Kiosk, Theme};
use embedded_graphics::pixelcolor::{BinaryColor, Gray8, Rgb565, Rgb888};
use embedded_graphics::prelude::{GrayColor, PixelColor, Point, RgbColor, Size};
use minifb::{InputCallback, Key, MouseButton, MouseMode, Scale, ScaleMode, Window, WindowOptions};
use serde_json::Value;

/// What the live mode needs from the command line.
pub struct Live<'a> {
    /// The agent's URL.
    pub url: &'a str,
    /// The first user message.
    pub message: &'a str,
    /// A borderless window on top that fills the screen.
    pub fullscreen: bool,
    /// Panel size (`None`: 320x240, 128x64 when mono; with `fullscreen`,
    /// the screen's size over the scale).
    pub size: Option<Size>,
    /// A monochrome panel.
    pub mono: bool,
    /// Window scale (`None`: 1; with `fullscreen`, the largest that fits).
    pub scale: Option<u32>,
    /// `NAME=COMMAND` frontend tools.
    pub tools: &'a [String],
    /// Most runs for the message (tool follow-ups included).
    pub max_runs: u32,
    /// Most calls to declared tools run in one run.
    pub max_tool_calls: u32,
    /// The client's limits (`--max-*`).
    pub limits: Limits,
    /// How long a tool's command may run.
    pub tool_timeout: Duration,
    /// How long a run may take in all (`None`: no limit).
    pub max_run_time: Option<Duration>,
    /// Headers sent with every request (checked at start-up).
    pub headers: Vec<HttpHeader>,
    /// The encoding asked for.
    pub encoding: Encoding,
}

impl Live<'_> {
    /// The panel of a window mode: the given size or the default one.
    fn panel(&self) -> Size {
        self.size.unwrap_or(if self.mono {
            Size::new(128, 64)
        } else {
            Size::new(320, 240)
        })
    }
}

/// Runs the live kiosk; `Ok(false)` if a run failed (the panel shows why).
pub fn run(live: &Live<'_>) -> Result<bool, String> {
    let display = Display::open()?;
    let place = if live.fullscreen {
        let screen = display.screen_size()?;
        fill(screen, live.panel(), live.size.is_some(), live.scale)
    } else {
        Placement::window(live.panel(), live.scale.unwrap_or(1))
    };
    if live.mono {
        let screen = Screen::open(live, place, Theme::<BinaryColor>::mono(), mono_pixel)?;
        drop(display);
        converse(live, screen)
    } else {
        let screen = Screen::open(live, place, Theme::<Rgb565>::default(), rgb_pixel)?;
        drop(display);
        converse(live, screen)
    }
}

fn mono_pixel(c: BinaryColor) -> u32 {
    u32::from(Gray8::from(c).luma()) * 0x01_01_01
}

fn rgb_pixel(c: Rgb565) -> u32 {
    let c = Rgb888::from(c);
    u32::from(c.r()) << 16 | u32::from(c.g()) << 8 | u32::from(c.b())
}

/// Where the panel goes in the window: each panel pixel is a `scale` x
/// `scale` square, the panel's top-left corner at `offset`.
#[derive(Debug, PartialEq, Eq)]
struct Placement {
    panel: Size,
    scale: usize,
    window: (usize, usize),
    offset: (usize, usize),
}

impl Placement {
    /// A window of the panel's size times `scale`.
    fn window(panel: Size, scale: u32) -> Self {
        let scale = scale.max(1) as usize;
        Placement {
            panel,
            scale,
            window: (panel.width as usize * scale, panel.height as usize * scale),
            offset: (0, 0),
        }
    }
}

/// Fullscreen on a `screen`: the scale is the given one, or the largest
/// whole factor at which `panel` fits (at least 1). The conversation is then
/// laid out at the screen's size over the scale, so that it fills the
/// screen (up to scale - 1 pixels), unless the panel size was `given`: then
/// that panel is enlarged and centred. A 320x240 panel's 6x10 font is 20
/// pixels high on an 800x480 screen, 40 on 1920x1080.
fn fill(screen: (usize, usize), panel: Size, given: bool, scale: Option<u32>) -> Placement {
    let fits = (screen.0 / panel.width as usize).min(screen.1 / panel.height as usize);
    let scale = scale.map_or(fits, |k| k as usize).max(1);
    let panel = if given {
        panel
    } else {
        let side = |screen: usize| u32::try_from(screen / scale).unwrap_or(u32::MAX).max(1);
        Size::new(side(screen.0), side(screen.1))
    };
    let used = (panel.width as usize * scale, panel.height as usize * scale);
    Placement {
        panel,
        scale,
        window: (used.0.max(screen.0), used.1.max(screen.1)),
        offset: (
            screen.0.saturating_sub(used.0) / 2,
            screen.1.saturating_sub(used.1) / 2,
        ),
    }
}

/// A connection to the X11 display in `$DISPLAY`, closed when dropped.
///
/// Held until the window is open: a bare X server (Xvfb, or `xinit` with
/// only the kiosk) resets when its last client leaves, and a window asked
/// for during the reset is refused.
struct Display {
    xlib: x11_dl::xlib::Xlib,
    display: *mut x11_dl::xlib::Display,
}

impl Display {
    fn open() -> Result<Self, String> {
        let xlib = x11_dl::xlib::Xlib::open().map_err(|e| no_window(&e.to_string()))?;
        // SAFETY: a function of the libX11 just loaded; a null name means
        // $DISPLAY.
        let display = unsafe { (xlib.XOpenDisplay)(std::ptr::null()) };
        if display.is_null() {
            return Err(no_window("XOpenDisplay failed"));
        }
        Ok(Display { xlib, display })
    }

    /// The default screen's size in pixels.
    fn screen_size(&self) -> Result<(usize, usize), String> {
        // SAFETY: the display is open (checked in `open`) until dropped.
        let (w, h) = unsafe {
            let screen = (self.xlib.XDefaultScreen)(self.display);
            (
                (self.xlib.XDisplayWidth)(self.display, screen),
                (self.xlib.XDisplayHeight)(self.display, screen),
            )
        };
        match (usize::try_from(w), usize::try_from(h)) {
            (Ok(w), Ok(h)) if w > 0 && h > 0 => Ok((w, h)),
            _ => Err(no_window(&format!("the screen is {w}x{h}"))),
        }
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        // SAFETY: opened in `open`, closed only here.
        unsafe { (self.xlib.XCloseDisplay)(self.display) };
    }
}

fn no_window(why: &str) -> String {
    format!("cannot open a window: {why} (an X11 display is needed: is DISPLAY set?)")
}

/// The window, the panel behind it and the renderer.
struct Screen<C> {
    window: Window,
    place: Placement,
    panel: Framebuffer<C>,
    kiosk: Kiosk<C>,
    pixel: fn(C) -> u32,
    buffer: Vec<u32>,
    /// The last Y or N pressed, from the window's key callback: a press
    /// shorter than a poll is not missed.
    typed: Rc<Cell<Option<Choice>>>,
}

impl<C: PixelColor> Screen<C> {
    fn open(
        live: &Live<'_>,
        place: Placement,
        theme: Theme<C>,
        pixel: fn(C) -> u32,
    ) -> Result<Self, String> {
        let (w, h) = place.window;
        let options = WindowOptions {
            borderless: live.fullscreen,
            title: !live.fullscreen,
            topmost: live.fullscreen,
            // The panel is enlarged here (any whole factor, pixels square),
            // not by minifb (powers of two only).
            scale: Scale::X1,
            scale_mode: ScaleMode::UpperLeft,
            ..WindowOptions::default()
        };
        // minifb's Display of the error leaves out why: its Debug says it.
        let mut window =
            Window::new("agui-kiosk", w, h, options).map_err(|e| no_window(&format!("{e:?}")))?;
        if live.fullscreen {
            window.set_position(0, 0);
        }
        let typed = Rc::new(Cell::new(None));
        window.set_input_callback(Box::new(Keys(typed.clone())));
        Ok(Screen {
            window,
            panel: Framebuffer::new(place.panel, theme.background),
            kiosk: Kiosk::new(Config::new(place.panel), theme),
            place,
            pixel,
            buffer: vec![0; w * h],
            typed,
        })
    }

    /// The panel pixel under the mouse, if it is over the panel.
    fn mouse_on_panel(&self) -> Option<Point> {
        let (x, y) = self.window.get_mouse_pos(MouseMode::Discard)?;
        let Placement {
            scale,
            offset: (left, top),
            ..
        } = self.place;
        // Window pixels left or above the panel are not on it.
        let x = (x.max(0.0) as usize).checked_sub(left)? / scale;
        let y = (y.max(0.0) as usize).checked_sub(top)? / scale;
        Some(Point::new(i32::try_from(x).ok()?, i32::try_from(y).ok()?))
    }

    /// Asks `question` in the prompt panel until Y or N is pressed or the
    /// answers row clicked; `None` when the window is closed or Escape
    /// pressed, or `deadline_ms` (ms since 1970) passes.
    fn ask(
        &mut self,
        question: &str,
        deadline_ms: Option<i64>,
        messages: &[Message],
        state: &Value,
    ) -> Option<Choice> {
        self.kiosk.set_prompt(Some(question));
        self.show(messages, state);
        println!("agui-kiosk: asking: press Y or N, or click the answer");
        let _ = std::io::stdout().flush();
        // A key pressed before the question was shown is not its answer.
        self.typed.set(None);
        let mut was_down = true;
        let choice = loop {
            self.pump();
            if let Some(choice) = self.typed.take() {
                break Some(choice);
            }
            let down = self.window.get_mouse_down(MouseButton::Left);
            if down && !was_down {
                if let Some(choice) = self
                    .mouse_on_panel()
                    .and_then(|p| self.kiosk.prompt_choice_at(p))
                {
                    break Some(choice);
                }
            }
            was_down = down;
            let gone = !self.window.is_open() || self.window.is_key_down(Key::Escape);
            if gone || deadline_ms.is_some_and(|d| now_ms() >= d) {
                break None;
            }
            thread::sleep(Duration::from_millis(20));
        };
        self.kiosk.set_prompt(None);
        self.show(messages, state);
        choice
    }

    /// Redraws what changed and shows the panel.
    fn show(&mut self, messages: &[Message], state: &Value) {
        match self.kiosk.draw(messages, state, &mut self.panel) {
            Ok(_) => {}
            Err(never) => match never {},
        }
        self.enlarge();
        let (w, h) = self.place.window;
        // A closed window only stops the pictures; the run goes on.
        let _ = self.window.update_with_buffer(&self.buffer, w, h);
    }

    /// Copies the panel into the window's buffer, each pixel a square.
    fn enlarge(&mut self) {
        let Placement {
            panel,
            scale: k,
            window: (stride, _),
            offset: (left, top),
        } = self.place;
        let width = panel.width as usize;
        for (y, row) in self.panel.pixels().chunks(width).enumerate() {
            let start = (top + y * k) * stride + left;
            let line = &mut self.buffer[start..start + width * k];
            for (square, &c) in line.chunks_mut(k).zip(row) {
                square.fill((self.pixel)(c));
            }
            for copy in 1..k {
                self.buffer
                    .copy_within(start..start + width * k, start + copy * stride);
            }
        }
    }

    /// Keeps the window responsive while nothing arrives.
    fn pump(&mut self) {
        self.window.update();
    }
}

/// The window's key callback: remembers Y and N as they are pressed.
struct Keys(Rc<Cell<Option<Choice>>>);

impl InputCallback for Keys {
    fn add_char(&mut self, _uni_char: u32) {}

    fn set_key_state(&mut self, key: Key, down: bool) {
        match (key, down) {
            (Key::Y, true) => self.0.set(Some(Choice::Yes)),
            (Key::N, true) => self.0.set(Some(Choice::No)),
            // Only the two answers are keys here; Escape is polled.
            _ => {}
        }
    }
}

/// Folds each event into a mirror of the conversation and shows it at
/// once (the conversation itself is borrowed by the run until it ends).
struct LiveView<'a, C> {
    screen: &'a mut Screen<C>,
    mirror: Reducer,
}

impl<C: PixelColor> Subscriber for LiveView<'_, C> {
    fn on_event(&mut self, event: &Event, _view: &mut HookView<'_>) -> Flow {
        self.screen.kiosk.observe(event);
        self.mirror.apply(event);
        self.screen
            .show(self.mirror.messages(), self.mirror.state());
        Flow::Continue
    }
}

impl<C: PixelColor> RunObserver for LiveView<'_, C> {
    fn on_wait(&mut self) {
        self.screen.pump();
    }
}

/// The user's message, the runs, the tools; then the window stays.
fn converse<C: PixelColor>(live: &Live<'_>, mut screen: Screen<C>) -> Result<bool, String> {
    let mut agent = HttpAgent::new(live.url)
        .max_run_time(live.max_run_time)
        .encoding(live.encoding);
    for header in &live.headers {
        agent = agent.header(header.name.clone(), header.value.clone());
    }
    let mut conv =
        Conversation::new(format!("agui-kiosk-{}", std::process::id())).with_limits(live.limits);
    let commands = declare_tools(&mut conv, live.tools)?;
    conv.add_user_message(live.message)
        .map_err(|e| e.to_string())?;
    screen.show(conv.messages(), conv.state());
    let mut ok = true;
    for _ in 0..live.max_runs {
        let mut view = LiveView {
            mirror: Reducer::with_initial(conv.messages().to_vec(), conv.state().clone()),
            screen: &mut screen,
        };
        let result = agent.run(&mut conv, &mut view);
        screen.show(conv.messages(), conv.state());
        match result {
            Ok(report) => {
                println!(
                    "agui-kiosk: run {}: {}",
                    Peer(&report.run_id),
                    Peer(&report.status.to_string())
                );
                if !report.status.is_finished() {
                    ok = false;
                    break;
                }
            }
            Err(e) => {
                println!("agui-kiosk: {}", Peer(&e.to_string()));
                screen.kiosk.set_stream_error(&e.to_string());
                screen.show(conv.messages(), conv.state());
                ok = false;
                break;
            }
        }
        let pending = conv.pending_tool_calls();
        let asked = match ask_person(&mut conv, &mut screen) {
            Ok(asked) => asked,
            Err(e) => {
                println!("agui-kiosk: {}", Peer(&e));
                screen.kiosk.set_stream_error(&e);
                screen.show(conv.messages(), conv.state());
                ok = false;
                break;
            }
        };
        if pending.is_empty() && !asked {
            break;
        }
        // One response cannot run the commands without bound.
        let run_now = usize::try_from(live.max_tool_calls).unwrap_or(usize::MAX);
        for (n, call) in pending.iter().enumerate() {
            if n < run_now {
                answer(&mut conv, &commands, call, live.tool_timeout);
            } else {
                let error = format!(
                    "not run: over {} tool calls in one run",
                    live.max_tool_calls
                );
                let _ = conv.add_tool_error(&call.id, error);
            }
        }
        screen.show(conv.messages(), conv.state());
    }
    println!("agui-kiosk: showing the conversation (close the window or press Escape to quit)");
    let _ = std::io::stdout().flush();
    while screen.window.is_open() && !screen.window.is_key_down(Key::Escape) {
        screen.pump();
        thread::sleep(Duration::from_millis(50));
    }
    Ok(ok)
}

/// The last run's interrupts, each asked in the prompt panel and answered
/// (or cancelled: expired, wanting a payload, the window left). False when
/// there were none; an error when the agent asked more than the
/// conversation keeps.
fn ask_person<C: PixelColor>(
    conv: &mut Conversation,
    screen: &mut Screen<C>,
) -> Result<bool, String> {
    if let Some(overflow) = conv.interrupt_overflow() {
        return Err(overflow.to_string());
    }
    let pending = conv.pending_interrupts().to_vec();
    if pending.is_empty() {
        return Ok(false);
    }
    for item in &pending {
        let interrupt = &item.interrupt;
        let expired = is_expired(interrupt, now_ms());
        println!("{}", describe(interrupt, expired));
        let answer = if expired {
            Resolution::Cancelled
        } else if wants_payload(interrupt) {
            println!(
                "agui-kiosk: interrupt {} wants a JSON answer, which the window cannot type: cancelled",
                Peer(&interrupt.id)
            );
            Resolution::Cancelled
        } else {
            let question = interrupt.message.as_deref().unwrap_or(&interrupt.reason);
            let deadline = interrupt.expires_at.as_deref().and_then(expiry_ms);
            match screen.ask(question, deadline, conv.messages(), conv.state()) {
                Some(Choice::Yes) => Resolution::approved(true),
                Some(Choice::No) => Resolution::approved(false),
                None => Resolution::Cancelled,
            }
        };
        // The id is one of the pending interrupts and no run is in
        // progress: answering cannot fail.
        let _ = conv.answer(&interrupt.id, answer.clone());
        println!("{}", describe_answer(&interrupt.id, &answer));
    }
    // What lapsed while the person thought is cancelled.
    conv.cancel_expired(now_ms());
    let _ = std::io::stdout().flush();
    Ok(true)
}

/// A `--tool NAME=COMMAND`.
struct ToolCommand {
    name: String,
    command: String,
}

fn declare_tools(conv: &mut Conversation, specs: &[String]) -> Result<Vec<ToolCommand>, String> {
    let mut commands = Vec::new();
    for spec in specs {
        let (name, command) = spec
            .split_once('=')
            .filter(|(n, c)| !n.trim().is_empty() && !c.trim().is_empty())
            .ok_or_else(|| format!("--tool '{spec}': expected NAME=COMMAND"))?;
        conv.declare_tool(Tool {
            name: name.trim().to_owned(),
            description: format!(
                "The kiosk runs '{}' and answers with its result.",
                name.trim()
            ),
            parameters: Some(serde_json::json!({"type": "object"})),
            metadata: None,
        });
        commands.push(ToolCommand {
            name: name.trim().to_owned(),
            command: command.to_owned(),
        });
    }
    Ok(commands)
}

/// Runs the tool's command with the arguments on stdin and adds its
/// trimmed output as the result (or its failure as the tool's error).
fn answer(
    conv: &mut Conversation,
    commands: &[ToolCommand],
    call: &PendingToolCall,
    timeout: Duration,
) {
    let Some(tool) = commands.iter().find(|t| t.name == call.name) else {
        return;
    };
    let added = match run_tool(&tool.command, &call.arguments, timeout) {
        Ok(result) => conv.add_tool_result(&call.id, result),
        Err(error) => conv.add_tool_error(&call.id, error),
    };
    // No run is in progress between runs, so adding cannot fail.
    debug_assert!(added.is_ok());
}

#[cfg(test)]
mod tests {
    use super::*;

    const PANEL: Size = Size::new(320, 240);

    #[test]
    fn fullscreen_lays_the_conversation_out_at_the_screen_over_the_largest_scale() {
        let at = |screen, scale| fill(screen, PANEL, false, scale);
        assert_eq!(
            at((800, 480), None),
            Placement {
                panel: Size::new(400, 240),
                scale: 2,
                window: (800, 480),
                offset: (0, 0)
            }
        );
        assert_eq!(at((1920, 1080), None).panel, Size::new(480, 270));
        assert_eq!(at((1920, 1080), None).scale, 4);
        // The panel's own size: as before.
        assert_eq!(at((320, 240), None), Placement::window(PANEL, 1));
        // --scale is kept; the odd pixel is left black, centred.
        let three = at((1281, 721), Some(3));
        assert_eq!((three.panel, three.offset), (Size::new(427, 240), (0, 0)));
        assert_eq!(three.window, (1281, 721));
    }

    #[test]
    fn fullscreen_with_a_size_enlarges_that_panel_and_centres_it() {
        let place = fill((800, 480), PANEL, true, None);
        assert_eq!((place.panel, place.scale), (PANEL, 2));
        assert_eq!((place.window, place.offset), ((800, 480), (80, 0)));
        let small = fill((100, 50), PANEL, true, None);
        assert_eq!((small.scale, small.window), (1, (320, 240)));
    }
}
