//! Integer geometry for the paint stack: points and clamped rectangles.

/// A point on the integer canvas grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// A rectangle given by its top-left corner and size; width and height are never negative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

impl Rect {
    /// The rectangle spanned by two opposite corners, in any order.
    pub fn from_corners(a: Point, b: Point) -> Rect {
        let (x0, x1) = if a.x <= b.x { (a.x, b.x) } else { (b.x, a.x) };
        let (y0, y1) = if a.y <= b.y { (a.y, b.y) } else { (b.y, a.y) };
        Rect { x: x0, y: y0, width: (x1 - x0) as u32, height: (y1 - y0) as u32 }
    }

    /// Whether `p` lies inside (the right and bottom edges are exclusive).
    pub fn contains(&self, p: Point) -> bool {
        let dx = i64::from(p.x) - i64::from(self.x);
        let dy = i64::from(p.y) - i64::from(self.y);
        dx >= 0 && dy >= 0 && dx < i64::from(self.width) && dy < i64::from(self.height)
    }

    /// The part of `self` inside a `width` x `height` canvas anchored at the origin.
    pub fn clamp_to(&self, width: u32, height: u32) -> Rect {
        let x0 = i64::from(self.x).clamp(0, i64::from(width));
        let y0 = i64::from(self.y).clamp(0, i64::from(height));
        let x1 = (i64::from(self.x) + i64::from(self.width)).clamp(0, i64::from(width));
        let y1 = (i64::from(self.y) + i64::from(self.height)).clamp(0, i64::from(height));
        Rect { x: x0 as i32, y: y0 as i32, width: (x1 - x0) as u32, height: (y1 - y0) as u32 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_in_any_order_give_the_same_rect() {
        let a = Point { x: 5, y: -2 };
        let b = Point { x: -1, y: 4 };
        assert_eq!(Rect::from_corners(a, b), Rect::from_corners(b, a));
        assert_eq!(Rect::from_corners(a, b), Rect { x: -1, y: -2, width: 6, height: 6 });
    }

    #[test]
    fn contains_excludes_the_far_edges() {
        let r = Rect { x: 0, y: 0, width: 3, height: 2 };
        assert!(r.contains(Point { x: 0, y: 0 }));
        assert!(r.contains(Point { x: 2, y: 1 }));
        assert!(!r.contains(Point { x: 3, y: 1 }));
        assert!(!r.contains(Point { x: 2, y: 2 }));
        assert!(!r.contains(Point { x: -1, y: 0 }));
    }

    #[test]
    fn clamping_keeps_only_the_canvas_part() {
        let r = Rect { x: -2, y: 3, width: 10, height: 10 };
        assert_eq!(r.clamp_to(6, 5), Rect { x: 0, y: 3, width: 6, height: 2 });
        assert_eq!(Rect { x: 9, y: 9, width: 2, height: 2 }.clamp_to(4, 4).width, 0);
    }
}
