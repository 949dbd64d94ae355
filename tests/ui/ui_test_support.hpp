#pragma once
// What the window-driving ui tests share: a stand-in for the message boxes that records what the
// window would have shown, and when a run counts as loaded.
#include <QString>
#include <QStringList>

#include "bridge/session_controller.hpp"
#include "main_window.hpp"
#include "user_prompts.hpp"

namespace distlab::ui::testing {

/// How long a run may take to load on a loaded CI machine.
inline constexpr int kLoadTimeoutMs = 15000;

/// Records what the window would show in message boxes; answers every question with `answer`.
struct Recorder {
    QStringList errors;
    QStringList questions;
    bool answer = true;
    UserPrompts prompts() {
        UserPrompts p;
        p.error = [this](QWidget*, const QString& title, const QString& message) { errors.append(title + ": " + message); };
        p.confirm = [this](QWidget*, const QString&, const QString& question) {
            questions.append(question);
            return answer;
        };
        return p;
    }
};

/// The window has a run that finished loading.
inline bool loaded(MainWindow& window) {
    return window.controller().hasRun() && !window.controller().isLoading() &&
           window.controller().state() != SessionState::Loading;
}

}  // namespace distlab::ui::testing
