//! An in-memory `DrawTarget` that counts the pixels it is sent.
//!
//! For host tools and tests: screenshots, golden images, and measuring how
//! much an incremental redraw writes (a display driver's cost is roughly the
//! pixels pushed to the panel).

use alloc::vec;
use alloc::vec::Vec;
use core::convert::Infallible;

use embedded_graphics::draw_target::DrawTarget;
use embedded_graphics::geometry::{OriginDimensions, Point, Size};
use embedded_graphics::pixelcolor::{Gray8, GrayColor, PixelColor, Rgb888, RgbColor};
use embedded_graphics::primitives::{PointsIter, Rectangle};
use embedded_graphics::Pixel;

/// A `width x height` picture of `C`, row-major.
///
/// ```
/// use agui_kiosk::framebuffer::Framebuffer;
/// use embedded_graphics::{pixelcolor::BinaryColor, prelude::*, primitives::Rectangle};
///
/// let mut fb = Framebuffer::new(Size::new(8, 4), BinaryColor::Off);
/// fb.fill_solid(&Rectangle::new(Point::new(6, 2), Size::new(4, 4)), BinaryColor::On).unwrap();
/// assert_eq!(fb.written(), 4); // clipped to the 2x2 inside
/// assert_eq!(fb.pixel(Point::new(7, 3)), Some(BinaryColor::On));
/// ```
///
/// Two framebuffers are equal when they hold the same picture; the write
/// counters are not compared.
#[derive(Debug, Clone)]
pub struct Framebuffer<C> {
    size: Size,
    pixels: Vec<C>,
    written: u64,
}

impl<C: PixelColor> Framebuffer<C> {
    /// A picture filled with `color`.
    pub fn new(size: Size, color: C) -> Self {
        let len = (size.width as usize).saturating_mul(size.height as usize);
        Framebuffer {
            size,
            pixels: vec![color; len],
            written: 0,
        }
    }

    /// The pixels, row by row.
    pub fn pixels(&self) -> &[C] {
        &self.pixels
    }

    /// The colour at `p`, `None` outside.
    pub fn pixel(&self, p: Point) -> Option<C> {
        self.index(p).and_then(|i| self.pixels.get(i).copied())
    }

    /// Pixels written since creation or the last [`reset_written`](Self::reset_written),
    /// clipped ones not counted.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Starts counting again from 0.
    pub fn reset_written(&mut self) {
        self.written = 0;
    }

    /// Red, green, blue bytes per pixel (a PNG's `Rgb` 8-bit data).
    pub fn to_rgb8(&self) -> Vec<u8>
    where
        Rgb888: From<C>,
    {
        let mut out = Vec::with_capacity(self.pixels.len().saturating_mul(3));
        for &c in &self.pixels {
            let c = Rgb888::from(c);
            out.extend_from_slice(&[c.r(), c.g(), c.b()]);
        }
        out
    }

    /// One luma byte per pixel (a PNG's `Grayscale` 8-bit data).
    pub fn to_gray8(&self) -> Vec<u8>
    where
        Gray8: From<C>,
    {
        self.pixels.iter().map(|&c| Gray8::from(c).luma()).collect()
    }

    fn index(&self, p: Point) -> Option<usize> {
        let x = u32::try_from(p.x).ok().filter(|&x| x < self.size.width)?;
        let y = u32::try_from(p.y).ok().filter(|&y| y < self.size.height)?;
        (y as usize)
            .checked_mul(self.size.width as usize)?
            .checked_add(x as usize)
    }

    fn set(&mut self, p: Point, color: C) {
        if let Some(slot) = self.index(p).and_then(|i| self.pixels.get_mut(i)) {
            *slot = color;
            self.written = self.written.saturating_add(1);
        }
    }
}

impl<C: PartialEq> PartialEq for Framebuffer<C> {
    fn eq(&self, other: &Self) -> bool {
        self.size == other.size && self.pixels == other.pixels
    }
}

impl<C: Eq> Eq for Framebuffer<C> {}

impl<C: PixelColor> OriginDimensions for Framebuffer<C> {
    fn size(&self) -> Size {
        self.size
    }
}

impl<C: PixelColor> DrawTarget for Framebuffer<C> {
    type Color = C;
    type Error = Infallible;

    fn draw_iter<I>(&mut self, pixels: I) -> Result<(), Self::Error>
    where
        I: IntoIterator<Item = Pixel<C>>,
    {
        for Pixel(p, c) in pixels {
            self.set(p, c);
        }
        Ok(())
    }

    fn fill_contiguous<I>(&mut self, area: &Rectangle, colors: I) -> Result<(), Self::Error>
    where
        I: IntoIterator<Item = C>,
    {
        for (p, c) in area.points().zip(colors) {
            self.set(p, c);
        }
        Ok(())
    }

    fn fill_solid(&mut self, area: &Rectangle, color: C) -> Result<(), Self::Error> {
        let clipped = area.intersection(&Rectangle::new(Point::zero(), self.size));
        let Some(bottom_right) = clipped.bottom_right() else {
            return Ok(());
        };
        // Row slices: a clear of a large panel is the common case.
        let width = self.size.width as usize;
        let (x0, x1) = (clipped.top_left.x as usize, bottom_right.x as usize);
        for y in clipped.top_left.y..=bottom_right.y {
            let start = (y as usize).saturating_mul(width);
            if let Some(row) = self
                .pixels
                .get_mut(start.saturating_add(x0)..=start.saturating_add(x1))
            {
                row.fill(color);
                self.written = self.written.saturating_add(row.len() as u64);
            }
        }
        Ok(())
    }

    fn clear(&mut self, color: C) -> Result<(), Self::Error> {
        self.pixels.fill(color);
        self.written = self.written.saturating_add(self.pixels.len() as u64);
        Ok(())
    }
}
