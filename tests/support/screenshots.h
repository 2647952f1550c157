// SPDX-License-Identifier: AGPL-3.0-or-later
// Where the UI tests save their screenshots, and which scene graph drew them. The screenshot suites run once per
// scene graph (ctest SUITE.opengl and SUITE.software, tests/CMakeLists.txt); each variant names its own folder and
// the graphics API it must render with, so a variant that silently fell back to another renderer fails.
#pragma once

#include <QQuickWindow>
#include <QSGRendererInterface>
#include <QString>

namespace marquee::test {

/** @brief $MARQUEE_SCREENSHOT_DIR (build/screenshots/<variant> under ctest), else @p fallback. */
inline QString screenshotDir(const QString &fallback)
{
    return qEnvironmentVariable("MARQUEE_SCREENSHOT_DIR", fallback);
}

/** @brief The scene graph @p window renders with: "opengl", "software", "vulkan", ... ("none" before its first frame). */
inline QString graphicsApiName(QQuickWindow *window)
{
    if (!window || !window->rendererInterface())
        return QStringLiteral("none");
    switch (window->rendererInterface()->graphicsApi()) {
    case QSGRendererInterface::Software:
        return QStringLiteral("software");
    case QSGRendererInterface::OpenGL:
        return QStringLiteral("opengl");
    case QSGRendererInterface::Vulkan:
        return QStringLiteral("vulkan");
    case QSGRendererInterface::Null:
        return QStringLiteral("null");
    default:
        return QStringLiteral("other");
    }
}

/** @brief Empty when @p window renders with the API $MARQUEE_EXPECT_GRAPHICS_API asks for (or none is asked for);
 * else a message saying what it renders with. Call it after the window has drawn a frame. */
inline QString unexpectedGraphicsApi(QQuickWindow *window)
{
    const QString expected = qEnvironmentVariable("MARQUEE_EXPECT_GRAPHICS_API");
    const QString actual = graphicsApiName(window);
    if (expected.isEmpty() || expected == actual)
        return {};
    return QStringLiteral("the scene graph renders with %1, this run expects %2").arg(actual, expected);
}

} // namespace marquee::test
