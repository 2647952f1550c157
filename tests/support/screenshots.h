// SPDX-License-Identifier: AGPL-3.0-or-later
// Where the UI tests save their screenshots, in which language, and which scene graph drew them. The screenshot
// suites run once per scene graph and language (ctest SUITE.opengl, SUITE.software and their German runs
// SUITE.opengl.de, SUITE.software.de; tests/CMakeLists.txt); each variant names its own folder and the graphics API
// it must render with, so a variant that silently fell back to another renderer fails.
#pragma once

#include <QCoreApplication>
#include <QQuickWindow>
#include <QSGRendererInterface>
#include <QString>

namespace marquee::test {

/** @brief The language the UI tests render in: $MARQUEE_SCREENSHOT_LANGUAGE ("de" in the German runs), else "en". */
inline QString screenshotLanguage()
{
    const QString language = qEnvironmentVariable("MARQUEE_SCREENSHOT_LANGUAGE");
    return language.isEmpty() ? QStringLiteral("en") : language;
}

/** @brief @p dir for English; its subfolder named after the language otherwise (build/screenshots/<variant>/de). */
inline QString languageDir(const QString &dir)
{
    const QString language = screenshotLanguage();
    return language == QLatin1String("en") ? dir : dir + QLatin1Char('/') + language;
}

/**
 * @brief @p english (a message of @p context, with @p n for its plural forms) as the screens show it in this run's
 * language: the app's own catalogue, so that a test names a text once and checks it in English and German alike.
 */
inline QString shown(const char *context, const char *english, int n = -1)
{
    return QCoreApplication::translate(context, english, nullptr, n);
}

/** @brief languageDir() of $MARQUEE_SCREENSHOT_DIR (build/screenshots/<variant> under ctest), else of @p fallback. */
inline QString screenshotDir(const QString &fallback)
{
    return languageDir(qEnvironmentVariable("MARQUEE_SCREENSHOT_DIR", fallback));
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
