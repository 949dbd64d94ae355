#include "lessons/engine_fact.hpp"

#include "bridge/session_controller.hpp"
#include "lessons/lesson_facts.hpp"
#include "main_window.hpp"

namespace distlab::ui {

EngineFact::EngineFact(MainWindow& window, QObject* parent) : QObject(parent), m_window(window) {
    // Asked again at each tick until the run can tell (it has trained a step).
    connect(&window.controller(), &SessionController::ticked, this, &EngineFact::ask);
    connect(&window.controller(), &SessionController::runReplaced, this, &EngineFact::forget);
}

void EngineFact::follow(const QString& name) {
    m_name = isEngineFact(name) ? name : QString();
    forget();
    ask();
}

void EngineFact::forget() {
    m_value.reset();
    m_asking = false;
    ++m_generation;
}

void EngineFact::ask() {
    if (m_name.isEmpty() || m_value || m_asking) return;
    m_asking = true;
    askEngineFact(m_window, m_name, this, [this, generation = m_generation](std::optional<QString> fact) {
        if (generation != m_generation) return;  // of a run or a question no longer shown
        m_asking = false;
        if (!fact) return;
        m_value = std::move(fact);
        emit answered();
    });
}

}  // namespace distlab::ui
