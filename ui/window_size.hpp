#pragma once
// The size the main window opens at on first launch (no saved geometry): most of the screen, so
// that a 1920×1080 screen shows the Explain dock beside the views, never more than the screen.
#include <QRect>
#include <QSize>

namespace distlab::ui {

/// The window's first size on a screen whose available area is `available` (pixels): 92 % of it,
/// at least 1280×800 (the smallest size every view is laid out for) where the screen has that room.
QSize initialWindowSize(const QRect& available);

}  // namespace distlab::ui
