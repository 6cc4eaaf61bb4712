//! A tiny raster canvas: one byte per pixel, rectangles filled through geom-math's clamping.

pub use geom_math::{Point, Rect};

/// A `width` x `height` canvas of 8-bit pixels, row-major.
pub struct Canvas {
    pub width: u32,
    pub height: u32,
    pixels: Vec<u8>,
}

impl Canvas {
    pub fn new(width: u32, height: u32) -> Canvas {
        Canvas { width, height, pixels: vec![0; (width as usize) * (height as usize)] }
    }

    pub fn get(&self, p: Point) -> Option<u8> {
        let r = Rect { x: 0, y: 0, width: self.width, height: self.height };
        if !r.contains(p) {
            return None;
        }
        Some(self.pixels[(p.y as usize) * (self.width as usize) + p.x as usize])
    }

    /// Fills the part of `rect` that lies on the canvas; pixels outside are never written.
    pub fn fill_rect(&mut self, rect: Rect, value: u8) {
        let c = rect.clamp_to(self.width, self.height);
        for y in c.y..c.y + c.height as i32 {
            for x in c.x..c.x + c.width as i32 {
                self.pixels[(y as usize) * (self.width as usize) + x as usize] = value;
            }
        }
    }

    /// How many pixels hold `value`.
    pub fn count(&self, value: u8) -> usize {
        self.pixels.iter().filter(|&&v| v == value).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_paints_exactly_the_rectangle() {
        let mut c = Canvas::new(8, 6);
        c.fill_rect(Rect { x: 2, y: 1, width: 3, height: 2 }, 7);
        assert_eq!(c.count(7), 6);
        assert_eq!(c.get(Point { x: 2, y: 1 }), Some(7));
        assert_eq!(c.get(Point { x: 5, y: 1 }), Some(0));
    }

    #[test]
    fn fill_off_canvas_is_clipped_not_a_panic() {
        let mut c = Canvas::new(4, 4);
        c.fill_rect(Rect { x: -3, y: 2, width: 5, height: 9 }, 1);
        assert_eq!(c.count(1), 4);
        assert_eq!(c.get(Point { x: 4, y: 0 }), None);
    }
}
