/*
 * naming.c - method and block names and source locations, at stop.
 *
 * Names are the same in every run: anonymous owners and singleton classes
 * of other objects, which Ruby names by memory address, are named by
 * Tracegraph::Naming (lib/tracegraph/naming.rb), and so are blocks, the
 * way backtraces print them.
 *
 * Anonymous modules with a Ruby method of their own, the common case
 * (Class.new and Struct.new in a loop), are named here by the same rule,
 * without a call to Ruby each (defined_module_name).
 *
 * Uses: naming.h, session.h (the method_key type only), core tg_gc.h.
 */
#include "naming.h"

#include <stdio.h>
#include <string.h>

#include <ruby/debug.h>
#include <ruby/encoding.h>

#include "tg_gc.h"

static VALUE mTracegraph;
static ID id_attached, id_instance_method, id_source_location, id_naming, id_block_name, id_begin_pass, id_end_pass,
    id_bind_call, id_short_path;

/* A block's first line: in its key without the VM reads, else its iseq's. */
static int block_line(const method_key *k)
{
    if (k->line) return k->line;
    VALUE line = rb_profile_frame_first_lineno(k->klass);
    return FIXNUM_P(line) ? FIX2INT(line) : 0;
}

/* Names and paths are labelled UTF-8 here, where it costs nothing on a
 * fresh string; Profile.clean_name then only has to check them (and
 * scrubs the rare one in another encoding). */
static VALUE as_utf8(VALUE fresh)
{
    return rb_enc_associate(fresh, rb_utf8_encoding());
}

/* The object a singleton class belongs to. */
static VALUE singleton_object(VALUE singleton_class)
{
#ifdef HAVE_RB_CLASS_ATTACHED_OBJECT
    return rb_class_attached_object(singleton_class);
#else
    return rb_attr_get(singleton_class, id_attached);
#endif
}

/* A class or module with a permanent name (not "#<Class:0x...>", nor
 * nested in one): its path is stable from run to run. */
static bool named_module(VALUE mod)
{
    VALUE name = rb_mod_name(mod);
    return RB_TYPE_P(name, T_STRING) && !memchr(RSTRING_PTR(name), '<', (size_t)RSTRING_LEN(name));
}

/* ---- anonymous modules, by where they were defined ------------------- */

/* Tracegraph::Naming.module_name names an anonymous module by the first of
 * its own methods written in Ruby: "#<Class:app/jobs.rb:12>". Programs
 * that call Struct.new or Class.new in a loop have thousands of them, so
 * that common case is named here, with the same rule and the same result,
 * without calling Ruby per module; what Naming decides otherwise (no own
 * method with a location: by its superclass; a method that may be a
 * compiled template; a temporary name) is left to it. */

/* Module.instance_method(:instance_method): bound to each module, it
 * is not looked up again in every new class's empty method cache. */
static VALUE um_instance_method;

/* One pass's memo (naming_begin_pass to naming_end_pass), a global the
 * collector marks and pins: [{module => name}.compare_by_identity, the
 * last file shortened, its short path]. */
static VALUE pass_memo = Qnil;
enum { MEMO_NAMES, MEMO_FILE, MEMO_SHORT };

/* The earliest [file, line] so far, as Array#min orders them; `other` if
 * a location was not a [String, Integer] pair. */
typedef struct earliest {
    VALUE file;
    long line;
    bool other;
} earliest;

static void keep_earliest(earliest *e, VALUE location)
{
    if (NIL_P(location)) return;
    VALUE file = RB_TYPE_P(location, T_ARRAY) && RARRAY_LEN(location) == 2 ? RARRAY_AREF(location, 0) : Qnil;
    VALUE line = RB_TYPE_P(location, T_ARRAY) && RARRAY_LEN(location) == 2 ? RARRAY_AREF(location, 1) : Qnil;
    if (!RB_TYPE_P(file, T_STRING) || !FIXNUM_P(line)) {
        e->other = true;
        return;
    }
    if (!NIL_P(e->file)) {
        int order = rb_str_cmp(file, e->file);
        if (order > 0 || (order == 0 && FIX2LONG(line) >= e->line)) return;
    }
    e->file = file;
    e->line = FIX2LONG(line);
}

/* Whether `str` has the two bytes `a` `b` in a row. */
static bool has_pair(VALUE str, char a, char b)
{
    const char *p = RSTRING_PTR(str);
    for (long i = 0; i + 1 < RSTRING_LEN(str); i++)
        if (p[i] == a && p[i + 1] == b) return true;
    return false;
}

/* "#<Class:file:line>" for an anonymous module with an own Ruby method,
 * memoized for the pass; Qnil to ask Naming. Under rb_protect. */
static VALUE defined_module_name(VALUE mod)
{
    /* This pass's memo, held here: the Ruby called below may let another
     * thread run, whose own stop would replace the global. */
    VALUE memo = pass_memo;
    if (NIL_P(memo) || !(RB_TYPE_P(mod, T_CLASS) || RB_TYPE_P(mod, T_MODULE))) return Qnil;
    VALUE names = RARRAY_AREF(memo, MEMO_NAMES);
    VALUE name = rb_hash_lookup2(names, mod, Qundef);
    if (name != Qundef) return name;
    VALUE own = rb_mod_name(mod);   /* a temporary name, say: Naming keeps it */
    if (RB_TYPE_P(own, T_STRING) && !has_pair(own, '#', '<')) return Qnil;

    const VALUE no = Qfalse;
    VALUE lists[2] = {rb_class_instance_methods(1, &no, mod), rb_class_private_instance_methods(1, &no, mod)};
    earliest e = {.file = Qnil};
    for (int l = 0; l < 2; l++) {
        for (long i = 0; i < RARRAY_LEN(lists[l]); i++) {
            VALUE sym = RARRAY_AREF(lists[l], i);
            if (has_pair(rb_sym2str(sym), '_', '_')) return Qnil;   /* maybe a compiled template */
            VALUE um = rb_funcall(um_instance_method, id_bind_call, 2, mod, sym);
            keep_earliest(&e, rb_funcall(um, id_source_location, 0));
        }
    }
    VALUE singletons = rb_obj_singleton_methods(1, &no, mod);
    for (long i = 0; i < RARRAY_LEN(singletons); i++)
        keep_earliest(&e, rb_funcall(rb_obj_method(mod, RARRAY_AREF(singletons, i)), id_source_location, 0));
    RB_GC_GUARD(lists[0]);
    RB_GC_GUARD(lists[1]);
    RB_GC_GUARD(singletons);
    if (e.other || NIL_P(e.file)) return Qnil;

    if (RARRAY_AREF(memo, MEMO_FILE) != e.file) {
        VALUE naming = rb_const_get_at(mTracegraph, id_naming);
        rb_ary_store(memo, MEMO_SHORT, rb_funcall(naming, id_short_path, 1, e.file));
        rb_ary_store(memo, MEMO_FILE, e.file);
    }
    VALUE short_path = RARRAY_AREF(memo, MEMO_SHORT);
    if (!RB_TYPE_P(short_path, T_STRING)) return Qnil;
    name = rb_str_new_cstr(RB_TYPE_P(mod, T_CLASS) ? "#<Class:" : "#<Module:");
    rb_str_cat(name, RSTRING_PTR(short_path), RSTRING_LEN(short_path));
    char line[24];   /* rb_str_catf's formatter cost more than the rest of the name */
    int n = snprintf(line, sizeof line, ":%ld>", e.line);
    rb_str_cat(name, line, n);
    rb_hash_aset(names, mod, name);
    RB_GC_GUARD(memo);
    return name;
}

static VALUE protected_module_name(VALUE mod)
{
    int state = 0;
    VALUE name = rb_protect(defined_module_name, mod, &state);
    if (state) {
        rb_set_errinfo(Qnil);
        return Qnil;
    }
    return name;
}

typedef struct naming_args {
    VALUE klass, attached;
} naming_args;

/* Tracegraph::Naming.owner(klass, attached), under rb_protect. */
static VALUE naming_owner(VALUE arg)
{
    const naming_args *a = (const naming_args *)arg;
    return rb_funcall(rb_const_get_at(mTracegraph, rb_intern("Naming")), rb_intern("owner"), 2, a->klass, a->attached);
}

typedef struct naming_call {
    VALUE label, owner, mid, line, method_name;
} naming_call;

/* Tracegraph::Naming.block_name(label, owner, mid, line, method_name),
 * under rb_protect. */
static VALUE call_block_name(VALUE arg)
{
    const naming_call *c = (const naming_call *)arg;
    VALUE naming = rb_const_get_at(mTracegraph, id_naming);
    return rb_funcall(naming, id_block_name, 5, c->label, c->owner, c->mid, c->line, c->method_name);
}

/* A block's name, the way backtraces print it, with the enclosing method
 * named as tracegraph names methods: "block in Foo#bar", "block (2
 * levels) in Foo.baz", and Ruby's own label for blocks outside methods
 * ("block in <main>", "block in <class:Foo>"). `method_name` is the
 * enclosing method's tracegraph name, or Qnil if there is none. */
static VALUE block_label_name(VALUE frame, int line, VALUE owner, ID owner_mid, VALUE method_name)
{
    VALUE label = rb_profile_frame_label(frame);
    naming_call c = {
        .label = RB_TYPE_P(label, T_STRING) ? rb_str_dup(label) : rb_str_new_cstr("block"),
        .owner = owner ? owner : Qnil,
        .mid = owner_mid ? ID2SYM(owner_mid) : Qnil,
        .line = INT2FIX(line),
        .method_name = method_name,
    };
    int state = 0;
    VALUE name = rb_protect(call_block_name, (VALUE)&c, &state);
    if (state || !RB_TYPE_P(name, T_STRING)) {
        rb_set_errinfo(Qnil);
        name = c.label;
    }
    return rb_enc_associate(rb_str_dup(name), rb_utf8_encoding());
}

/* [file, line] of a block (its first line). */
static VALUE block_location(VALUE frame, int line)
{
    VALUE path = rb_profile_frame_path(frame);
    if (RB_TYPE_P(path, T_STRING)) path = rb_enc_associate(rb_str_dup(path), rb_utf8_encoding());
    else path = Qnil;
    return rb_ary_new_from_args(2, path, INT2FIX(line));
}

/* "Class#meth" for instance methods, "Class.meth" for singleton methods of
 * a class or module. Anonymous owners and singleton classes of other
 * objects, which Ruby names by memory address, are named by
 * Tracegraph::Naming (lib/tracegraph/naming.rb) so that names are the
 * same in every run. */
static VALUE method_name(const method_key *k)
{
    /* A GC pseudo-method (session_gc_method). */
    if (NIL_P(k->klass)) return rb_utf8_str_new_cstr(tg_gc_node_name((uint32_t)k->mid));
    VALUE owner = k->klass, name = Qnil, attached = Qnil;
    const char *separator = "#";
    if (RB_TYPE_P(owner, T_CLASS) && FL_TEST(owner, FL_SINGLETON)) {
        attached = singleton_object(owner);
        if ((RB_TYPE_P(attached, T_CLASS) || RB_TYPE_P(attached, T_MODULE)) && named_module(attached)) {
            separator = ".";
            name = rb_str_dup(rb_class_path(attached));
        }
    } else if (named_module(owner)) {
        name = rb_str_dup(rb_class_path(owner));
    }
    if (NIL_P(name)) {
        /* An anonymous module, or its singleton class: see defined_module_name. */
        VALUE defined = NIL_P(attached) ? protected_module_name(owner)
                        : (RB_TYPE_P(attached, T_CLASS) || RB_TYPE_P(attached, T_MODULE)) ? protected_module_name(attached)
                                                                                            : Qnil;
        if (!NIL_P(defined)) {
            name = as_utf8(rb_str_dup(defined));
            separator = NIL_P(attached) ? "#" : ".";
        }
    }
    if (NIL_P(name)) {
        int state = 0;
        naming_args args = {owner, attached};
        VALUE pair = rb_protect(naming_owner, (VALUE)&args, &state);
        if (state || !RB_TYPE_P(pair, T_ARRAY) || RARRAY_LEN(pair) != 2) {
            rb_set_errinfo(Qnil);
            pair = rb_ary_new_from_args(2, rb_any_to_s(owner), rb_str_new_cstr("#"));
        }
        /* A path in the name may be in any encoding: label it UTF-8
         * before the method name joins it (Profile.clean_name scrubs). */
        name = as_utf8(rb_str_dup(rb_obj_as_string(rb_ary_entry(pair, 0))));
        VALUE sep = rb_ary_entry(pair, 1);
        separator = RB_TYPE_P(sep, T_STRING) && RSTRING_LEN(sep) == 1 && RSTRING_PTR(sep)[0] == '.' ? "." : "#";
    }
    rb_str_cat_cstr(name, separator);
    VALUE mname = rb_id2str(k->mid);
    /* Bytes, whatever either part's encoding: the whole is labelled UTF-8
     * and Profile.clean_name scrubs what is not. */
    if (mname) rb_str_cat(name, RSTRING_PTR(mname), RSTRING_LEN(mname));
    else rb_str_cat_cstr(name, "?");
    return as_utf8(name);
}

/* "block in Foo#bar" and the like: see block_label_name. */
static VALUE block_name(const method_key *k)
{
    VALUE owner_name = Qnil;
    if (k->owner && k->owner_mid) {
        method_key owner = {.klass = k->owner, .mid = k->owner_mid};
        owner_name = method_name(&owner);
    }
    return block_label_name(k->klass, block_line(k), k->owner, k->owner_mid, owner_name);
}

static VALUE source_location(VALUE key)
{
    const method_key *k = (const method_key *)key;
    /* Module#instance_method itself: not looked up in each class, nor
     * a class's own instance_method. */
    VALUE um = rb_funcall(um_instance_method, id_bind_call, 2, k->klass, ID2SYM(k->mid));
    return rb_funcall(um, id_source_location, 0);
}

VALUE naming_location(const method_key *k)
{
    if (k->is_c || NIL_P(k->klass)) return rb_ary_new_from_args(2, Qnil, Qnil);
    if (k->is_block) return block_location(k->klass, block_line(k));
    int state = 0;
    VALUE loc = rb_protect(source_location, (VALUE)k, &state);
    if (state) {
        rb_set_errinfo(Qnil);
        return rb_ary_new_from_args(2, Qnil, Qnil);
    }
    if (!RB_TYPE_P(loc, T_ARRAY)) return rb_ary_new_from_args(2, Qnil, Qnil);
    VALUE file = rb_ary_entry(loc, 0);
    /* The path is the iseq's own string: label a copy. */
    if (RB_TYPE_P(file, T_STRING)) rb_ary_store(loc, 0, as_utf8(rb_str_dup(file)));
    return loc;
}

/* Tracegraph::Naming.begin_pass or .end_pass, under rb_protect: a
 * failure costs only the cache. */
static VALUE call_naming(VALUE id)
{
    return rb_funcall(rb_const_get_at(mTracegraph, id_naming), (ID)id, 0);
}

static void naming_pass(ID id)
{
    int state = 0;
    rb_protect(call_naming, (VALUE)id, &state);
    if (state) rb_set_errinfo(Qnil);
}

void naming_begin_pass(void)
{
    VALUE names = rb_hash_new();
    rb_funcall(names, rb_intern("compare_by_identity"), 0);
    pass_memo = rb_ary_new_from_args(3, names, Qnil, Qnil);
    naming_pass(id_begin_pass);
}

void naming_end_pass(void)
{
    pass_memo = Qnil;
    naming_pass(id_end_pass);
}

VALUE naming_name(const method_key *k)
{
    return k->is_block ? block_name(k) : method_name(k);
}

void naming_init(VALUE mod)
{
    mTracegraph = mod;
    id_attached = rb_intern("__attached__");
    id_instance_method = rb_intern("instance_method");
    id_source_location = rb_intern("source_location");
    id_naming = rb_intern("Naming");
    id_block_name = rb_intern("block_name");
    id_begin_pass = rb_intern("begin_pass");
    id_end_pass = rb_intern("end_pass");
    id_bind_call = rb_intern("bind_call");
    id_short_path = rb_intern("short_path");
    um_instance_method = rb_funcall(rb_cModule, id_instance_method, 1, ID2SYM(id_instance_method));
    rb_gc_register_mark_object(um_instance_method);
    rb_gc_register_address(&pass_memo);
}
