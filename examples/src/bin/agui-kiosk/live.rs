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

use std::io::Write;
use std::thread;
use std::time::Duration;

use agui_alloc::conversation::{Conversation, PendingToolCall};
use agui_alloc::event::Event;
use agui_alloc::hooks::{Flow, HookView, Subscriber};
use agui_alloc::http::{HttpAgent, RunObserver};
use agui_alloc::model::{Message, Tool};
use agui_alloc::reduce::Reducer;
use agui_examples::tool_command::{run_tool, MAX_TOOL_CALLS, TOOL_TIMEOUT};
use agui_examples::transcript::Peer;
use agui_kiosk::framebuffer::Framebuffer;
use agui_kiosk::{Config, Kiosk, Theme};
use embedded_graphics::pixelcolor::{BinaryColor, Gray8, Rgb565, Rgb888};
use embedded_graphics::prelude::{GrayColor, PixelColor, RgbColor, Size};
use minifb::{Key, Scale, ScaleMode, Window, WindowOptions};
use serde_json::Value;

/// What the live mode needs from the command line.
pub struct Live<'a> {
    /// The agent's URL.
    pub url: &'a str,
    /// The first user message.
    pub message: &'a str,
    /// A borderless window on top, scaled to fill the screen.
    pub fullscreen: bool,
    /// Panel size.
    pub size: Size,
    /// A monochrome panel.
    pub mono: bool,
    /// Window scale (1, 2, 4, 8, 16).
    pub scale: u32,
    /// `NAME=COMMAND` frontend tools.
    pub tools: &'a [String],
    /// Most runs for the message (tool follow-ups included).
    pub max_runs: u32,
}

/// Runs the live kiosk; `Ok(false)` if a run failed (the panel shows why).
pub fn run(live: &Live<'_>) -> Result<bool, String> {
    if live.mono {
        let screen = Screen::open(live, Theme::<BinaryColor>::mono(), mono_pixel)?;
        converse(live, screen)
    } else {
        let screen = Screen::open(live, Theme::<Rgb565>::default(), rgb_pixel)?;
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

/// The window, the panel behind it and the renderer.
struct Screen<C> {
    window: Window,
    panel: Framebuffer<C>,
    kiosk: Kiosk<C>,
    pixel: fn(C) -> u32,
    buffer: Vec<u32>,
}

impl<C: PixelColor> Screen<C> {
    fn open(live: &Live<'_>, theme: Theme<C>, pixel: fn(C) -> u32) -> Result<Self, String> {
        let (w, h) = (live.size.width as usize, live.size.height as usize);
        let options = WindowOptions {
            borderless: live.fullscreen,
            title: !live.fullscreen,
            topmost: live.fullscreen,
            scale: if live.fullscreen {
                Scale::FitScreen
            } else {
                scale(live.scale)
            },
            scale_mode: ScaleMode::AspectRatioStretch,
            ..WindowOptions::default()
        };
        let mut window = Window::new("agui-kiosk", w, h, options).map_err(|e| {
            format!("cannot open a window: {e} (an X11 display is needed: is DISPLAY set?)")
        })?;
        if live.fullscreen {
            window.set_position(0, 0);
        }
        Ok(Screen {
            window,
            panel: Framebuffer::new(live.size, theme.background),
            kiosk: Kiosk::new(Config::new(live.size), theme),
            pixel,
            buffer: vec![0; w * h],
        })
    }

    /// Redraws what changed and shows the panel.
    fn show(&mut self, messages: &[Message], state: &Value) {
        match self.kiosk.draw(messages, state, &mut self.panel) {
            Ok(_) => {}
            Err(never) => match never {},
        }
        for (out, &c) in self.buffer.iter_mut().zip(self.panel.pixels()) {
            *out = (self.pixel)(c);
        }
        let size = self.panel.size_of();
        // A closed window only stops the pictures; the run goes on.
        let _ = self.window.update_with_buffer(&self.buffer, size.0, size.1);
    }

    /// Keeps the window responsive while nothing arrives.
    fn pump(&mut self) {
        self.window.update();
    }
}

/// The panel's size as the window wants it.
trait SizeOf {
    fn size_of(&self) -> (usize, usize);
}

impl<C: PixelColor> SizeOf for Framebuffer<C> {
    fn size_of(&self) -> (usize, usize) {
        use embedded_graphics::prelude::OriginDimensions;
        let s = self.size();
        (s.width as usize, s.height as usize)
    }
}

fn scale(k: u32) -> Scale {
    match k {
        0..=1 => Scale::X1,
        2..=3 => Scale::X2,
        4..=7 => Scale::X4,
        8..=15 => Scale::X8,
        _ => Scale::X16,
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
    let agent = HttpAgent::new(live.url);
    let mut conv = Conversation::new(format!("agui-kiosk-{}", std::process::id()));
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
        if pending.is_empty() {
            break;
        }
        // One response cannot run the commands without bound.
        let run_now = usize::try_from(MAX_TOOL_CALLS).unwrap_or(usize::MAX);
        for (n, call) in pending.iter().enumerate() {
            if n < run_now {
                answer(&mut conv, &commands, call);
            } else {
                let error = format!("not run: over {MAX_TOOL_CALLS} tool calls in one run");
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
fn answer(conv: &mut Conversation, commands: &[ToolCommand], call: &PendingToolCall) {
    let Some(tool) = commands.iter().find(|t| t.name == call.name) else {
        return;
    };
    let added = match run_tool(&tool.command, &call.arguments, TOOL_TIMEOUT) {
        Ok(result) => conv.add_tool_result(&call.id, result),
        Err(error) => conv.add_tool_error(&call.id, error),
    };
    // No run is in progress between runs, so adding cannot fail.
    debug_assert!(added.is_ok());
}
