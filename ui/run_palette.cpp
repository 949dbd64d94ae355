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

QColor networkColor() { return QColor::fromRgb(0x6a3d9a); }

QColor phaseColor(Phase part) {
    // Darker, fuller tones than any replica colour (Tableau 10 above): a lane's colour in the
    // timeline, a replica's curve or bar never reads as compute, communication or waiting
    // (tests/ui/test_views_agree.cpp keeps every pair at least kMinColourDistance apart).
    switch (part) {
        case Phase::Compute:
            return QColor::fromRgb(0x1f3f7a);
        case Phase::Communication:
            return QColor::fromRgb(0xc06000);
        case Phase::Waiting:
            return QColor::fromRgb(0xb2182b);
        case Phase::Optimizer:
            return QColor::fromRgb(0x1b7837);
        case Phase::Idle:
            return QColor::fromRgb(0xdcdcdc);
    }
    return Qt::gray;
}

QString phaseLabel(Phase part) { return QString::fromLatin1(phaseName(part)); }

bool darkPalette() {
    const QPalette palette = QApplication::palette();
    return palette.color(QPalette::Window).lightness() < 128;
}

QColor mixColors(const QColor& a, const QColor& b, double t) {
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

}  // namespace distlab::ui
