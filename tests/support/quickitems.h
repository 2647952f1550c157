// SPDX-License-Identifier: AGPL-3.0-or-later
// Finding what a UI test looks at: items of a window by objectName, in the visual tree.
#pragma once

#include <QQuickItem>
#include <QQuickWindow>
#include <QString>

namespace marquee::test {

/** @brief The visible item named @p name under @p parent (null when there is none). */
inline QQuickItem *itemNamed(QQuickItem *parent, const QString &name)
{
    // The visual tree, not the QObject tree: Repeater delegates and loaded screens hang off their parent item.
    for (QQuickItem *child : parent->childItems()) {
        if (!child->isVisible())
            continue;
        if (child->objectName() == name)
            return child;
        if (QQuickItem *found = itemNamed(child, name))
            return found;
    }
    return nullptr;
}

/** @brief The visible item named @p name in @p window (null when there is none). */
inline QQuickItem *itemNamed(QQuickWindow *window, const QString &name)
{
    return itemNamed(window->contentItem(), name);
}

} // namespace marquee::test
