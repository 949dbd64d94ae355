#pragma once
// Colours that mean the same thing in every view: replica i has one colour in the timeline, the
// per-replica charts, the step-time bars and the variable lab. GUI thread only.
#include <QColor>
#include <QString>

#include <distlab/telemetry/phase_split.hpp>

namespace distlab::ui {

/// The colour of replica (or logical device) `replica`; stable for a given index, cycles after 10.
QColor replicaColor(int replica);

/// Colours of the step's phases (the engine's phase split), shared by the timeline and the
/// throughput view; phaseName() gives the words.
QColor phaseColor(Phase phase);
/// The hop between processes inside communication (the timeline's band over a multi-worker lead's
/// communication): a purple no replica and no phase uses.
QColor networkColor();
/// The phase's word in every legend (the engine's phaseName: "compute", ..., "idle"); each phase
/// has its own entry everywhere (no view merges waiting and idle).
QString phaseLabel(Phase phase);
/// How far apart (RGB distance) every phase colour is from every replica colour.
inline constexpr double kMinColourDistance = 60.0;

/// The colour `t` of the way from `a` to `b` (0: a, 1: b), each RGB channel in a straight line.
QColor mixColors(const QColor& a, const QColor& b, double t);

/// True when the application palette is dark (views pick their own colours to match).
bool darkPalette();

}  // namespace distlab::ui
