#include "run_palette.hpp"

#include <QApplication>
#include <QPalette>

#include <array>

namespace distlab::ui {

QColor replicaColor(int replica) {
    // Tableau 10: distinct on light and dark backgrounds and for the common colour-vision deficiencies.
    static constexpr std::array<QRgb, 10> kColors{0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2,
                                                  0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
    const auto index = static_cast<std::size_t>(replica < 0 ? 0 : replica) % kColors.size();
    return QColor::fromRgb(kColors[index]);
}

QColor phaseColor(Phase part) {
    switch (part) {
    case Phase::Compute: return QColor::fromRgb(0x4e79a7);
    case Phase::Communication: return QColor::fromRgb(0xf28e2b);
    case Phase::Waiting: return QColor::fromRgb(0xe15759);
    case Phase::Optimizer: return QColor::fromRgb(0x59a14f);
    case Phase::Idle: return QColor::fromRgb(0xbab0ac);
    }
    return Qt::gray;
}

bool darkPalette() {
    const QPalette palette = QApplication::palette();
    return palette.color(QPalette::Window).lightness() < 128;
}

}  // namespace distlab::ui
