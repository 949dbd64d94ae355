#include "window_size.hpp"

#include <algorithm>

namespace distlab::ui {

namespace {
constexpr double kScreenShare = 0.92;  // leaves the desktop's panels and a margin around the window
constexpr int kSmallestWidth = 1280;
constexpr int kSmallestHeight = 800;

int fit(int room, int smallest) {
    const int share = static_cast<int>(room * kScreenShare);
    return std::min(room, std::max(share, smallest));
}
}  // namespace

QSize initialWindowSize(const QRect& available) {
    return {fit(available.width(), kSmallestWidth), fit(available.height(), kSmallestHeight)};
}

}  // namespace distlab::ui
