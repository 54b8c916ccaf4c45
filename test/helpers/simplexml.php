<?php
// Reads the service's XML answers as the official PHP library does
// (simplexml_load_string, ->code, ->data, ->message; success is code 0 or
// 100, compared as it compares them), for test/helpers/php.ts. stdin: a JSON
// array of XML texts; stdout: a JSON array of {loaded, success, code,
// message, data}, data as text, a list for <item> children, or an object.

function value(SimpleXMLElement $e) {
    $children = $e->children();
    if (count($children) === 0) {
        return (string) $e;
    }
    $names = array();
    foreach ($children as $name => $child) {
        $names[] = $name;
    }
    if (count(array_unique($names)) === 1 && $names[0] === 'item') {
        $list = array();
        foreach ($children as $child) {
            $list[] = value($child);
        }
        return $list;
    }
    $object = new stdClass();
    foreach ($children as $name => $child) {
        $object->$name = value($child);
    }
    return $object;
}

$out = array();
foreach (json_decode(stream_get_contents(STDIN), true) as $text) {
    $xml = @simplexml_load_string($text);
    if (!$xml) {
        $out[] = array('loaded' => false);
        continue;
    }
    $out[] = array(
        'loaded' => true,
        'success' => in_array($xml->code, array(0, 100)),
        'code' => (string) $xml->code,
        'message' => (string) $xml->message,
        'data' => value($xml->data),
    );
}
echo json_encode($out, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES);
