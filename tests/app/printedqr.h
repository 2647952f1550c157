// SPDX-License-Identifier: AGPL-3.0-or-later
// Reading a printed ticket back as a person's scanner would: the PDF page rendered to an image with pdftoppm
// (poppler-utils), its QR decoded with zxing-cpp. Shared by the printer unit tests and the paid end-to-end flow.
#pragma once

#include <QDir>
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <ZXing/ReadBarcode.h>

namespace marquee::apptest {

/** @brief The text of the QR code in @p source, or empty when none is readable. */
inline QString decodeQr(const QImage &source)
{
    const QImage image = source.convertToFormat(QImage::Format_Grayscale8);
    ZXing::DecodeHints hints;
    hints.setFormats(ZXing::BarcodeFormat::QRCode);
    hints.setTryHarder(true);
    const ZXing::Result result =
        ZXing::ReadBarcode(ZXing::ImageView(image.constBits(), image.width(), image.height(), ZXing::ImageFormat::Lum, int(image.bytesPerLine())), hints);
    return result.isValid() ? QString::fromStdString(result.text()) : QString();
}

/** @brief The pdftoppm program, or empty when poppler-utils is not installed. */
inline QString pdftoppmProgram()
{
    return QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
}

/**
 * @brief Page @p page (1-based) of @p pdf rendered at @p dpi into @p workDir; a null image on failure, with the
 * reason in @p error.
 */
inline QImage renderPdfPage(const QString &pdf, int page, const QString &workDir, QString *error, int dpi = 200)
{
    const QString program = pdftoppmProgram();
    if (program.isEmpty()) {
        *error = QStringLiteral("pdftoppm (poppler-utils) is not installed");
        return {};
    }
    const QString stem = QDir(workDir).filePath(QStringLiteral("page-%1").arg(page));
    QProcess process;
    process.start(program, {QStringLiteral("-png"), QStringLiteral("-r"), QString::number(dpi), QStringLiteral("-f"), QString::number(page),
                            QStringLiteral("-l"), QString::number(page), QStringLiteral("-singlefile"), pdf, stem});
    if (!process.waitForFinished(60000) || process.exitCode() != 0) {
        *error = QStringLiteral("pdftoppm failed: ") + QString::fromLocal8Bit(process.readAllStandardError());
        return {};
    }
    QImage image(stem + QStringLiteral(".png"));
    if (image.isNull())
        *error = QStringLiteral("pdftoppm wrote no readable PNG");
    return image;
}

} // namespace marquee::apptest
